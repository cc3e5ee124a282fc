import { createHash } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { createFileorgEngine, type FileorgEngineOptions } from "../engine/engine.js";
import { createFileorg, type Fileorg, type FileorgOptions } from "../engine/fileorg.js";
import { migrate } from "../store/migrate.js";

/** A temp directory, a migrated file database and an engine over them. */
export interface Harness {
  dir: string;
  dbPath: string;
  engine: ReturnType<typeof createFileorgEngine>;
  db: ReturnType<typeof drizzle>;
  close(): Promise<void>;
}

/** Builds a harness; the engine is started. */
export async function createHarness(
  options: Partial<FileorgEngineOptions> & { start?: boolean } = {},
): Promise<Harness> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-test-")));
  const dbPath = join(dir, "test.db");
  const client = createClient({ url: `file:${dbPath}`, timeout: 5000 });
  await client.execute("PRAGMA journal_mode = WAL");
  const db = drizzle(client);
  await migrate(db);
  const { start = true, ...rest } = options;
  const engine = createFileorgEngine({ db, allowedRoots: [dir], journalKey: TEST_KEY, ...rest });
  if (start) await engine.start();
  return {
    dir,
    dbPath,
    engine,
    db,
    async close() {
      await engine.stop();
      client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A harness whose engines are composed as the server composes them: the core (`engine`), review, preferences. */
export type ComposedHarness = Harness & Pick<Fileorg, "fileorg" | "review" | "preferences">;

/**
 * Builds a harness over {@link createFileorg} (the core with review's hooks: strategy pack and saved rules at
 * analyze, rules files, preferences); the core is started, and `engine` is it.
 */
export async function createComposedHarness(
  options: Partial<Omit<FileorgOptions, "db">> = {},
): Promise<ComposedHarness> {
  const base = await createHarness({ start: false });
  const composed = createFileorg({
    allowedRoots: [base.dir],
    journalKey: TEST_KEY,
    ...options,
    db: drizzle(base.db.$client),
  });
  const { fileorg } = composed;
  await fileorg.start();
  return {
    ...base,
    engine: fileorg,
    fileorg,
    review: composed.review,
    preferences: composed.preferences,
    async close() {
      await fileorg.stop();
      await base.close();
    },
  };
}

/** Writes files (path → content) under `root`, creating folders; an optional fixed mtime. */
export function writeTree(
  root: string,
  files: Record<string, string | Buffer>,
  mtime = new Date("2023-05-06T12:00:00Z"),
) {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    utimesSync(path, mtime, mtime);
  }
}

/** A minimal valid PNG (1×1). */
export const PNG_1x1 = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5e2b1a40000000049454e44ae426082",
  "hex",
);

/** A tiny PDF with one page. */
export const PDF_1PAGE = Buffer.from(
  "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
);

/** The journal key of tests (a fixed key, so a child process can share it). */
export const TEST_KEY = Buffer.alloc(32, 7);

/** Every regular file under `root` (relative path → SHA-256), and every directory. */
export function snapshotTree(root: string): { files: Record<string, string>; dirs: string[] } {
  const files: Record<string, string> = {};
  const dirs: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const rel = relative(root, path);
      if (entry.isDirectory()) {
        dirs.push(rel);
        walk(path);
      } else if (entry.isFile()) {
        files[rel] = createHash("sha256").update(readFileSync(path)).digest("hex");
      }
    }
  };
  walk(root);
  return { files, dirs: dirs.sort() };
}
