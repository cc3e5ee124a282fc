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
  const differing = FIELDS.filter((field) => new Set(rows.map((r) => show(r[field]))).size > 1).length;
  return (
    <table className="compare" data-testid="compare">
      <caption>
        Comparing {rows.length} rows: {differing} of {FIELDS.length} fields differ (marked “≠ differs”)
      </caption>
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
              <th scope="row">
                {field}
                {/* A word as well as the colour, so the difference does not rest on colour alone. */}
                {differs ? <span className="differs-mark"> ≠ differs</span> : null}
              </th>
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
