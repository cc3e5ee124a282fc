import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef } from "react";
import type { ManifestRow } from "./types.js";

const ROW_HEIGHT = 32;

/**
 * The virtualised manifest table: only the rows in view (plus a small overscan) are in the DOM; the next
 * page is asked for when the end of what is loaded comes into view.
 */
export function RowTable(props: {
  rows: readonly ManifestRow[];
  outputDir: string;
  cursor: number;
  selected: ReadonlySet<string>;
  hasMore: boolean;
  onLoadMore: () => void;
  onOpen: (index: number) => void;
  onToggle: (index: number, range: boolean) => void;
}) {
  const { rows, cursor, selected, hasMore, onLoadMore } = props;
  const parent = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: rows.length + (hasMore ? 1 : 0),
    getScrollElement: () => parent.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const items = virtual.getVirtualItems();
  const last = items[items.length - 1];
  useEffect(() => {
    if (last !== undefined && last.index >= rows.length - 1 && hasMore) onLoadMore();
  }, [last, rows.length, hasMore, onLoadMore]);
  useEffect(() => {
    if (cursor >= 0) virtual.scrollToIndex(cursor, { align: "auto" });
  }, [cursor, virtual]);
  const rel = (p: string) => (p.startsWith(`${props.outputDir}/`) ? p.slice(props.outputDir.length + 1) : p);
  return (
    <div ref={parent} className="row-table" style={{ height: "60vh", overflow: "auto" }}>
      <table
        aria-label="Manifest rows"
        aria-rowcount={rows.length}
        style={{ width: "100%", tableLayout: "fixed" }}
      >
        <thead style={{ position: "sticky", top: 0, zIndex: 1 }}>
          <tr style={{ display: "flex" }}>
            <th scope="col" style={{ width: "2.5em" }}>
              <span className="sr-only">Selected</span>
            </th>
            <th scope="col" style={{ flex: 2 }}>
              File
            </th>
            <th scope="col" style={{ flex: 3 }}>
              Planned target
            </th>
            <th scope="col" style={{ flex: 1 }}>
              Category
            </th>
            <th scope="col" style={{ flex: 1 }}>
              Bucket
            </th>
            <th scope="col" style={{ flex: 1 }}>
              Status
            </th>
          </tr>
        </thead>
        <tbody style={{ display: "block", height: virtual.getTotalSize(), position: "relative" }}>
          {items.map((item) => {
            const row = rows[item.index];
            const place = {
              position: "absolute",
              top: item.start,
              height: ROW_HEIGHT,
              left: 0,
              right: 0,
              display: "flex",
            } as const;
            if (row === undefined) {
              return (
                <tr key="more" style={place}>
                  <td>Loading more rows…</td>
                </tr>
              );
            }
            const isSelected = selected.has(row.row_id);
            const name = row.source_path.slice(row.source_path.lastIndexOf("/") + 1);
            return (
              <tr
                key={row.row_id}
                data-row={row.row_id}
                data-selected={isSelected}
                aria-rowindex={item.index + 1}
                className={`manifest-row${item.index === cursor ? " is-cursor" : ""}${isSelected ? " is-selected" : ""}`}
                style={place}
              >
                <td style={{ width: "2.5em" }}>
                  <input
                    type="checkbox"
                    aria-label={`Select ${name}`}
                    checked={isSelected}
                    onClick={(e) => {
                      e.stopPropagation();
                      props.onToggle(item.index, e.shiftKey);
                    }}
                    onChange={() => undefined}
                  />
                </td>
                <td style={{ flex: 2 }} title={row.source_path}>
                  <button type="button" className="link" onClick={() => props.onOpen(item.index)}>
                    {name}
                  </button>
                </td>
                <td style={{ flex: 3 }} title={row.target_path}>
                  {rel(row.target_path)}
                </td>
                <td style={{ flex: 1 }}>{row.category}</td>
                <td style={{ flex: 1 }}>
                  <span className={`badge bucket-${row.review_bucket}`}>{row.review_bucket}</span>
                </td>
                <td style={{ flex: 1 }}>{row.action === "skip" ? "skip" : row.status}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
