import type { ReviewRule } from "./review-rule.js";

/** A built-in strategy: how a kind of folder is organized and how cautious review is about it. */
export interface StrategyPack {
  id: string;
  name: string;
  description: string;
  /** The categories this pack sorts into. */
  categories: string[];
  naming_template: string;
  /** Rows under this confidence land in `needs_review`. */
  confidence_threshold: number;
  /** Rules that come with the pack: applied to every new row at analyze, before the saved rules. */
  default_rules: ReviewRule[];
}

/** The id of the pack used when none is chosen. */
export const DEFAULT_STRATEGY_PACK_ID = "downloads-cleanup";

const rule = (
  id: string,
  name: string,
  priority: number,
  conditions: ReviewRule["conditions"],
  actions: ReviewRule["actions"],
  stop = false,
): ReviewRule => ({ id, name, enabled: true, priority, stop_further_rules: stop, conditions, actions });

/** The built-in strategy packs, read-only. */
export const STRATEGY_PACKS: readonly StrategyPack[] = [
  {
    id: "downloads-cleanup",
    name: "Downloads clean-up",
    description: "Sorts a downloads folder by kind and year; installers and archives are flagged for review.",
    categories: [
      "documents",
      "images",
      "audio",
      "video",
      "archives",
      "installers",
      "spreadsheets",
      "presentations",
      "ebooks",
      "code",
      "fonts",
      "other",
    ],
    naming_template: "{category}/{yyyy}/{name}{ext}",
    confidence_threshold: 0.7,
    default_rules: [
      rule(
        "pack_downloads_partial",
        "Skip unfinished downloads",
        100,
        { any: [{ field: "extension", in: [".part", ".crdownload", ".download", ".tmp"] }] },
        [{ type: "skip" }],
        true,
      ),
      rule(
        "pack_downloads_installers",
        "Installers to installers/",
        50,
        { any: [{ field: "extension", in: [".dmg", ".pkg", ".exe", ".msi", ".deb", ".rpm", ".appimage"] }] },
        [{ type: "set_category", category: "installers" }],
      ),
    ],
  },
  {
    id: "photos-by-date",
    name: "Photos by date",
    description: "Photos and videos into year/month/day folders, named by date with a short hash.",
    categories: ["images", "video", "other"],
    naming_template: "{category}/{yyyy}/{mm}/{dd}/{name}{ext}",
    confidence_threshold: 0.8,
    default_rules: [
      rule(
        "pack_photos_raw",
        "RAW files stay with their photos",
        50,
        { any: [{ field: "extension", in: [".cr2", ".cr3", ".nef", ".arw", ".dng", ".raf", ".orf"] }] },
        [{ type: "set_category", category: "images" }],
      ),
      rule(
        "pack_photos_sidecars",
        "Skip editor sidecar files",
        40,
        { any: [{ field: "extension", in: [".xmp", ".aae", ".thm"] }] },
        [{ type: "skip" }],
      ),
    ],
  },
  {
    id: "documents-by-type",
    name: "Documents by type",
    description: "Office documents, PDFs, spreadsheets and slides into one folder per type and year.",
    categories: ["documents", "spreadsheets", "presentations", "ebooks", "other"],
    naming_template: "{category}/{yyyy}/{name}{ext}",
    confidence_threshold: 0.75,
    default_rules: [
      rule(
        "pack_documents_scans",
        "Scans are documents",
        30,
        { any: [{ field: "name_glob", glob: "scan*" }] },
        [{ type: "set_category", category: "documents" }],
      ),
    ],
  },
  {
    id: "receipts",
    name: "Receipts",
    description: "Receipts and invoices into receipts/year/month as documents; everything else by type.",
    categories: ["documents", "images", "spreadsheets", "other"],
    naming_template: "{category}/{yyyy}/{mm}/{name}{ext}",
    confidence_threshold: 0.85,
    default_rules: [
      rule(
        "pack_receipts_named",
        "Receipts and invoices by name",
        60,
        {
          all: [{ field: "extension", in: [".pdf", ".jpg", ".jpeg", ".png", ".heic"] }],
          any: [{ field: "name_regex", regex: "receipt|invoice|rechnung|facture|quittung|bill", flags: "i" }],
        },
        [
          { type: "set_category", category: "documents" },
          { type: "set_target", template: "receipts/{yyyy}/{mm}/{name}{ext}" },
        ],
      ),
    ],
  },
  {
    id: "folders-kept",
    name: "Folders kept",
    description:
      "Sorts by kind but keeps each file's sub-folders under its category instead of flattening them ({relpath}).",
    categories: [
      "documents",
      "images",
      "audio",
      "video",
      "archives",
      "installers",
      "spreadsheets",
      "presentations",
      "ebooks",
      "code",
      "other",
    ],
    naming_template: "{category}/{relpath}/{name}{ext}",
    confidence_threshold: 0.7,
    default_rules: [
      rule(
        "pack_folders_partial",
        "Skip unfinished downloads",
        100,
        { any: [{ field: "extension", in: [".part", ".crdownload", ".download", ".tmp"] }] },
        [{ type: "skip" }],
        true,
      ),
    ],
  },
];

/** The built-in pack with this id, if any. */
export function findStrategyPack(id: string): StrategyPack | undefined {
  return STRATEGY_PACKS.find((p) => p.id === id);
}
