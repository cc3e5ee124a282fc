import { type ReactNode, useState } from "react";
import { collapseBelow, folderFilterText, toggleFolder, visibleTree } from "./model/folder-tree.js";
import type { ManifestView } from "./types.js";

const OPEN_KEY = "vetted.review.folders";

/** Whether the folder panel is open: the person's last choice (kept in localStorage), open at first. */
function useFolderPanelOpen(): [boolean, (open: boolean) => void] {
  const [open, setOpen] = useState(() => {
    try {
      return localStorage.getItem(OPEN_KEY) !== "closed";
    } catch {
      return true;
    }
  });
  return [
    open,
    (next) => {
      setOpen(next);
      try {
        localStorage.setItem(OPEN_KEY, next ? "open" : "closed");
      } catch {
        // Storage refused (private mode, quota): the choice lasts for this page only.
      }
    },
  ];
}

/**
 * The planned target folder tree with file counts, as a side panel beside the table that folds away (the
 * choice is remembered); a click on a folder filters the table to it.
 */
export function FolderPanel(props: {
  view: ManifestView | undefined;
  status: ReactNode;
  onPick: (text: string) => void;
}) {
  const [open, setOpen] = useFolderPanelOpen();
  const count = props.view?.folders.length;
  return (
    <div className={`folder-panel${open ? " is-open" : ""}`} data-open={open}>
      <button
        type="button"
        className="folder-toggle"
        aria-expanded={open}
        aria-controls="folder-tree"
        onClick={() => setOpen(!open)}
      >
        {open ? "◂ Hide folders" : `▸ Folders${count === undefined ? "" : ` (${count})`}`}
      </button>
      {open ? (
        <div id="folder-tree">
          {props.view !== undefined ? <FolderTree view={props.view} onPick={props.onPick} /> : props.status}
        </div>
      ) : null}
    </div>
  );
}

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
