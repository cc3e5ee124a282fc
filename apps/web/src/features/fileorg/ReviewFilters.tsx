import { useState } from "react";
import { BUCKETS, type ReviewSearch, SORT_FIELDS } from "./model/review-search.js";
import { bucketOption, type ReviewCounts } from "./model/review-summary.js";

/** The review table's filters and sort (kept in the URL); the bucket choices say how many rows each holds. */
export function Filters(props: {
  search: ReviewSearch;
  setSearch: (patch: Partial<ReviewSearch>) => void;
  categories: string[];
  counts: ReviewCounts | undefined;
}) {
  const { search, setSearch } = props;
  const [text, setText] = useState(search.q ?? "");
  return (
    <form
      className="filters"
      aria-label="Filters"
      onSubmit={(e) => {
        e.preventDefault();
        setSearch({ q: text.trim() === "" ? undefined : text.trim() });
      }}
    >
      <label>
        Bucket
        <select
          name="bucket"
          value={search.bucket ?? ""}
          onChange={(e) =>
            setSearch({
              bucket: e.target.value === "" ? undefined : (e.target.value as ReviewSearch["bucket"]),
            })
          }
        >
          <option value="">All{props.counts === undefined ? "" : ` (${props.counts.total})`}</option>
          {BUCKETS.map((b) => (
            <option key={b} value={b}>
              {bucketOption(b, props.counts)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Category
        <select
          name="category"
          value={search.category ?? ""}
          onChange={(e) => setSearch({ category: e.target.value || undefined })}
        >
          <option value="">All</option>
          {props.categories.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <label>
        Reason
        <input
          key={search.reason ?? ""}
          name="reason"
          defaultValue={search.reason ?? ""}
          placeholder="LOW_CONFIDENCE"
          onBlur={(e) => setSearch({ reason: e.target.value.trim() || undefined })}
        />
      </label>
      <label>
        Sort
        <select
          name="sort"
          value={search.sort ?? ""}
          onChange={(e) => setSearch({ sort: e.target.value || undefined })}
        >
          <option value="">Analyze order</option>
          {SORT_FIELDS.flatMap((f) => [
            <option key={f} value={f}>
              {f} ↑
            </option>,
            <option key={`-${f}`} value={`-${f}`}>
              {f} ↓
            </option>,
          ])}
        </select>
      </label>
      <label>
        Text
        <input name="q" value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <button type="submit">Filter</button>
    </form>
  );
}
