import { useState } from "react";
import { collapseBelow, folderFilterText, toggleFolder, visibleTree } from "./model/folder-tree.js";
import type { ManifestView } from "./types.js";

/** The planned target folder tree with file counts; a click filters the table to that folder. */
export function FolderTree({ view, onPick }: { view: ManifestView; onPick: (text: string) => void }) {
  const [collapsed, setCollapsed] = useState(() => collapseBelow(view.folders, 2));
  const rootName = view.output_dir.slice(view.output_dir.lastIndexOf("/") + 1) || "/";
  const lines = visibleTree(view.folders, collapsed, rootName);
  return (
    <nav className="folder-tree card" aria-label="Planned folders">
      <ul>
        {lines.map((l) => (
          <li key={l.path} style={{ paddingLeft: `${l.depth}em` }}>
            {l.hasChildren ? (
              <button
                type="button"
                aria-expanded={l.expanded}
                aria-label={`${l.expanded ? "Collapse" : "Expand"} ${l.name}`}
                onClick={() => setCollapsed(toggleFolder(collapsed, l.path))}
              >
                {l.expanded ? "▾" : "▸"}
              </button>
            ) : null}
            <button
              type="button"
              className="link"
              onClick={() => onPick(folderFilterText(view.output_dir, l.path))}
            >
              {l.name}
            </button>{" "}
            <span className="count">{l.total_files}</span>
          </li>
        ))}
      </ul>
      {view.outside > 0 ? <p>{view.outside} row(s) planned outside the output folder</p> : null}
    </nav>
  );
}
