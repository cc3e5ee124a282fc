import { useVirtualizer } from "@tanstack/react-virtual";
import { type RefObject, useEffect, useRef } from "react";
import { formatBytes } from "./model/format-bytes.js";
import { isRowVisible } from "./model/review-keys.js";
import { contentDate, dateSourceLabel, metaLabel, sourceFolder, unitLabel } from "./model/row-facts.js";
import { Thumb } from "./Thumb.js";
import type { ManifestRow } from "./types.js";

const ROW_HEIGHT = 46;
/** The sticky header's height (styles.css `.row-table thead`): kept clear when a row is scrolled into view. */
const HEAD_HEIGHT = 34;

/**
 * Whether the row `rowId` is on screen: rendered, and at least half inside the window and the table's scroll
 * box below its sticky header.
 */
export function rowOnScreen(box: HTMLElement | null, rowId: string | undefined): boolean {
  if (box === null || rowId === undefined) return false;
  const row = box.querySelector(`[data-row="${CSS.escape(rowId)}"]`)?.getBoundingClientRect();
  const clip = box.getBoundingClientRect();
  const head = box.querySelector("thead")?.getBoundingClientRect().bottom ?? clip.top;
  return isRowVisible(row, [
    { top: 0, bottom: window.innerHeight },
    { top: Math.max(clip.top, head), bottom: clip.bottom },
  ]);
}

/**
 * The virtualised manifest table: only the rows in view (plus a small overscan) are in the DOM; the next
 * page is asked for when the end of what is loaded comes into view. Each row: a thumbnail (images, a PDF's
 * first page; lazy-loaded in a fixed box), name, source folder and what the content told (camera, tags),
 * planned target and unit, content date and where it was read, size, category, bucket and reasons.
 */
export function RowTable(props: {
  box: RefObject<HTMLDivElement | null>;
  rows: readonly ManifestRow[];
  /** The analyze job: rows' thumbnails are asked of it. */
  jobId: string;
  outputDir: string;
  sourceDir: string | undefined;
  cursor: number;
  /** Bumped to bring the cursor row into view (the table into the window, the row into the table). */
  reveal: number;
  selected: ReadonlySet<string>;
  hasMore: boolean;
  onLoadMore: () => void;
  onOpen: (index: number) => void;
  onToggle: (index: number, range: boolean) => void;
}) {
  const { rows, cursor, selected, hasMore, onLoadMore, box, reveal } = props;
  const virtual = useVirtualizer({
    count: rows.length + (hasMore ? 1 : 0),
    getScrollElement: () => box.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
    scrollPaddingEnd: HEAD_HEIGHT,
  });
  const items = virtual.getVirtualItems();
  const last = items[items.length - 1];
  useEffect(() => {
    if (last !== undefined && last.index >= rows.length - 1 && hasMore) onLoadMore();
  }, [last, rows.length, hasMore, onLoadMore]);
  useEffect(() => {
    if (cursor >= 0) virtual.scrollToIndex(cursor, { align: "auto" });
  }, [cursor, virtual]);
  // Only a new reveal request scrolls here (a cursor move scrolls through the effect above).
  const cursorNow = useRef(cursor);
  cursorNow.current = cursor;
  useEffect(() => {
    if (reveal === 0) return;
    box.current?.scrollIntoView({ block: "nearest" });
    virtual.scrollToIndex(Math.max(0, cursorNow.current), { align: "auto" });
  }, [reveal, box, virtual]);
  const rel = (p: string) => (p.startsWith(`${props.outputDir}/`) ? p.slice(props.outputDir.length + 1) : p);
  return (
    <div ref={box} className="row-table">
      <table aria-label="Manifest rows" aria-rowcount={rows.length}>
        <thead>
          <tr>
            <th scope="col" className="col-check">
              <span className="sr-only">Selected</span>
            </th>
            <th scope="col" className="col-thumb">
              <span className="sr-only">Preview</span>
            </th>
            <th scope="col" className="col-file">
              File · from folder
            </th>
            <th scope="col" className="col-target">
              Planned target · unit
            </th>
            <th scope="col" className="col-date">
              Date · read from
            </th>
            <th scope="col" className="col-size">
              Size
            </th>
            <th scope="col" className="col-category">
              Category
            </th>
            <th scope="col" className="col-bucket">
              Bucket · reasons
            </th>
          </tr>
        </thead>
        <tbody style={{ height: virtual.getTotalSize() }}>
          {items.map((item) => {
            const row = rows[item.index];
            const place = { top: item.start, height: ROW_HEIGHT } as const;
            if (row === undefined) {
              return (
                <tr key="more" className="manifest-row" style={place}>
                  <td>Loading more rows…</td>
                </tr>
              );
            }
            return (
              <Row
                key={row.row_id}
                row={row}
                index={item.index}
                style={place}
                isCursor={item.index === cursor}
                isSelected={selected.has(row.row_id)}
                jobId={props.jobId}
                target={rel(row.target_path)}
                folder={sourceFolder(row.source_path, props.sourceDir)}
                onOpen={props.onOpen}
                onToggle={props.onToggle}
              />
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function Row(props: {
  row: ManifestRow;
  index: number;
  style: { top: number; height: number };
  isCursor: boolean;
  isSelected: boolean;
  jobId: string;
  target: string;
  folder: string;
  onOpen: (index: number) => void;
  onToggle: (index: number, range: boolean) => void;
}) {
  const { row, index, isSelected } = props;
  const name = row.source_path.slice(row.source_path.lastIndexOf("/") + 1);
  const unit = unitLabel(row.unit);
  const meta = metaLabel(row.meta);
  const reasons = row.reason_codes.join(", ");
  return (
    <tr
      data-row={row.row_id}
      data-selected={isSelected}
      aria-rowindex={index + 1}
      className={`manifest-row${props.isCursor ? " is-cursor" : ""}${isSelected ? " is-selected" : ""}`}
      style={props.style}
    >
      <td className="col-check">
        <input
          type="checkbox"
          aria-label={`Select ${name}`}
          checked={isSelected}
          onClick={(e) => {
            e.stopPropagation();
            props.onToggle(index, e.shiftKey);
          }}
          onChange={() => undefined}
        />
      </td>
      <td className="col-thumb">
        <Thumb jobId={props.jobId} rowId={row.row_id} mime={row.mime} name={name} px={36} size={64} />
      </td>
      <td className="col-file" title={row.source_path}>
        <button type="button" className="link" onClick={() => props.onOpen(index)}>
          {name}
        </button>
        <span className="sub">
          <span data-cell="folder">{props.folder}</span>
          {meta !== undefined ? (
            <span data-cell="meta" title={meta}>
              {" · "}
              {meta}
            </span>
          ) : null}
        </span>
      </td>
      <td className="col-target" title={row.target_path}>
        {props.target}
        {unit !== undefined ? (
          <span className="sub" data-cell="unit" title={row.unit?.reason}>
            unit: {unit}
          </span>
        ) : null}
      </td>
      <td className="col-date">
        <time dateTime={contentDate(row.date)}>{contentDate(row.date)}</time>
        <span className="sub" data-cell="date-source">
          {dateSourceLabel(row.date_source)}
        </span>
      </td>
      <td className="col-size">{formatBytes(row.size)}</td>
      <td className="col-category">{row.category}</td>
      <td className="col-bucket" title={reasons}>
        <span className={`badge bucket-${row.review_bucket}`}>{row.review_bucket}</span>
        {row.action === "skip" ? " skip" : row.status === "pending" ? null : ` ${row.status}`}
        {row.action === "copy" ? " copy" : null}
        <span className="sub" data-cell="reasons">
          {reasons}
        </span>
      </td>
    </tr>
  );
}
