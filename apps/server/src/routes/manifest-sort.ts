import { z } from "@hono/zod-openapi";
import { VIEW_SORT_FIELDS } from "@vetted/fileorg";

const SORT_KEY = new RegExp(`^(${VIEW_SORT_FIELDS.join("|")}):(asc|desc)$`);

/**
 * `?sort=size:desc,source_path:asc` of the manifest listing: up to five keys over the fields a saved view may
 * sort by (then analyze order); it wins over a saved view's sort.
 */
export const ManifestSort = z
  .string()
  .min(1)
  .max(200)
  .transform((value, ctx) => {
    const keys = value.split(",").map((k) => k.trim());
    const bad = keys.filter((k) => !SORT_KEY.test(k));
    if (bad.length > 0 || keys.length > 5) {
      ctx.addIssue({
        code: "custom",
        message: `sort is up to five field:asc|desc keys, fields among ${VIEW_SORT_FIELDS.join(", ")}${bad.length > 0 ? `; not understood: ${bad.join(", ")}` : ""}`,
      });
      return z.NEVER;
    }
    return keys.map((k) => {
      const [field, direction] = k.split(":") as [(typeof VIEW_SORT_FIELDS)[number], "asc" | "desc"];
      return { field, direction };
    });
  })
  .meta({ description: "Sort keys `field:asc|desc`, comma-separated (up to 5); wins over a view's sort" });
