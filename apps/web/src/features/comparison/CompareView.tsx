import type { ComparisonRow } from "@vetted/comparison";

const FIELDS: (keyof ComparisonRow)[] = [
  "label",
  "status",
  "starterKind",
  "recommendedPack",
  "hostFamily",
  "firstSuccessMode",
  "readOnly",
  "needsRuntimeInvoke",
  "needsMcpTransport",
  "bestEntry",
  "smokeCommand",
  "copyReadyPackPath",
  "compareAgainst",
  "recommendedDocs",
  "bestWhen",
  "avoidWhen",
  "safeClaims",
  "notYetSupported",
];

function show(value: ComparisonRow[keyof ComparisonRow]): string {
  if (Array.isArray(value)) return value.length === 0 ? "—" : value.join("; ");
  if (typeof value === "boolean") return value ? "yes" : "no";
  return value;
}

/** Side-by-side compare of 2–4 rows: one line per field, so every field is aligned across rows. */
export function CompareView({ rows }: { rows: ComparisonRow[] }) {
  return (
    <table className="compare" data-testid="compare">
      <caption>Comparing {rows.length} rows</caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          {rows.map((r) => (
            <th scope="col" key={r.id}>
              {r.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {FIELDS.map((field) => {
          const values = rows.map((r) => show(r[field]));
          const differs = new Set(values).size > 1;
          return (
            <tr key={field} data-field={field} className={differs ? "differs" : undefined}>
              <th scope="row">{field}</th>
              {values.map((v, i) => (
                <td key={rows[i]?.id ?? i}>{v}</td>
              ))}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
