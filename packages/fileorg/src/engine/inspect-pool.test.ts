import { createHash } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createInspectPool, type InspectPool } from "./inspect-pool.js";

const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

describe("inspect pool", () => {
  let dir: string | undefined;
  let pool: InspectPool | undefined;
  afterEach(async () => {
    await pool?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("hashes small and large files in input order, keeps the head only where sniffing can tell more", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-inspect-")));
    const large = Buffer.alloc(3 * (1 << 20) + 7, 0x01);
    const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(10, 0)]);
    writeFileSync(join(dir, "a.txt"), "plain text\n");
    writeFileSync(join(dir, "big.bin"), large);
    writeFileSync(join(dir, "doc.pdf"), pdf);
    writeFileSync(join(dir, "empty"), "");
    symlinkSync(join(dir, "a.txt"), join(dir, "link"));
    pool = createInspectPool(2);
    const paths = ["a.txt", "big.bin", "doc.pdf", "empty", "link", "gone"].map((n) => join(dir ?? "", n));
    const [text, big, doc, empty, link, gone] = await pool.inspect(paths, [dir]);

    expect(text).toMatchObject({ size: 11, sha256: sha("plain text\n"), head: null, errorCode: null });
    expect(big).toMatchObject({ size: large.length, sha256: sha(large), errorCode: null });
    expect(big?.head?.length).toBe(4100);
    expect(Buffer.from(doc?.head ?? []).equals(pdf)).toBe(true);
    expect(doc?.sha256).toBe(sha(pdf));
    expect(empty).toMatchObject({ size: 0, sha256: sha(""), head: null });
    expect(link).toBeUndefined(); // a symlink is never followed
    expect(gone).toBeUndefined(); // vanished since the walk
  });

  it("neither reads nor reports a file whose real parent lies outside the roots", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-inspect-")));
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-outside-")));
    try {
      mkdirSync(join(dir, "root"));
      writeFileSync(join(outside, "secret.txt"), "outside");
      symlinkSync(outside, join(dir, "root", "sub"));
      writeFileSync(join(dir, "root", "inside.txt"), "inside");
      pool = createInspectPool(1);
      const root = join(dir, "root");
      const [through, inside] = await pool.inspect(
        [join(root, "sub", "secret.txt"), join(root, "inside.txt")],
        [root],
      );
      expect(through).toBeUndefined();
      expect(inside).toMatchObject({ size: 6, sha256: sha("inside") });
      const [seen] = await pool.stat([join(root, "sub", "secret.txt")], [root]);
      expect(seen).toEqual({ outside: true });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("moves on the file thread only inside the roots and only the recorded file, checked right before the link", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-move-")));
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-outside-")));
    try {
      const src = join(dir, "src");
      const out = join(dir, "out");
      mkdirSync(join(src, "real"), { recursive: true });
      mkdirSync(out);
      writeFileSync(join(src, "real", "a.txt"), "a");
      writeFileSync(join(src, "real", "b.txt"), "b");
      writeFileSync(join(outside, "c.txt"), "outside");
      symlinkSync(outside, join(src, "away"));
      symlinkSync(outside, join(out, "away"));
      const identityOf = (path: string) => {
        const st = statSync(path);
        const ms = (n: number) => Math.trunc(n);
        return { dev: st.dev, ino: st.ino, size: st.size, mtime: ms(st.mtimeMs), ctime: ms(st.ctimeMs) };
      };
      const a = identityOf(join(src, "real", "a.txt"));
      const b = identityOf(join(src, "real", "b.txt"));
      pool = createInspectPool(1);
      const outcomes = await pool.linkMoves(
        [
          { from: join(src, "away", "c.txt"), to: join(out, "c.txt"), identity: null },
          { from: join(src, "real", "a.txt"), to: join(out, "away", "a.txt"), identity: a },
          { from: join(src, "real", "a.txt"), to: join(out, "a.txt"), identity: b },
          { from: join(src, "real", "b.txt"), to: join(out, "b.txt"), identity: b },
        ],
        { source: [src], target: [out] },
      );
      expect(outcomes.map((o) => o.outcome)).toEqual([
        "outside_root",
        "outside_root",
        "source_changed",
        "moved",
      ]);
      expect(readdirSync(outside)).toEqual(["c.txt"]);
      expect(readdirSync(join(src, "real"))).toEqual(["a.txt"]);
      expect(readdirSync(out).sort()).toEqual(["away", "b.txt"]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("starts its threads from the sources through the tsx shim when the test runs name no bundle", async () => {
    // The other tests' threads start from the bundle of `reader-bundle-setup.ts`; `tsx` runs use the shim.
    const bundle = process.env.VETTED_TEST_READER_BUNDLE;
    delete process.env.VETTED_TEST_READER_BUNDLE;
    try {
      dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-inspect-")));
      writeFileSync(join(dir, "a.txt"), "plain text\n");
      pool = createInspectPool(1);
      const [text] = await pool.inspect([join(dir, "a.txt")], [dir]);
      expect(text).toMatchObject({ size: 11, sha256: sha("plain text\n"), errorCode: null });
    } finally {
      if (bundle !== undefined) process.env.VETTED_TEST_READER_BUNDLE = bundle;
    }
  });

  it("refuses work once closed", async () => {
    pool = createInspectPool(1);
    await pool.close();
    await expect(pool.inspect(["/nowhere"], ["/"])).rejects.toThrow(/stopped/);
    pool = undefined;
  });
});
