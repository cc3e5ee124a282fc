import { z } from "zod";
import { MAX_PATH_BYTES, MAX_SEGMENT_BYTES, pathLengthProblem } from "./path-limits.js";

/**
 * A path as the API takes it (a target, a folder, a naming template): non-empty, at most 4096 bytes and
 * each `/`-separated segment at most 255 bytes (UTF-8). The check is one pass over the text, so an
 * oversized body is refused before anything works on it.
 */
export const PathInput = z
  .string()
  .min(1)
  .superRefine((path, ctx) => {
    const problem = pathLengthProblem(path);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  })
  .meta({
    description: `At most ${MAX_PATH_BYTES} bytes, each segment at most ${MAX_SEGMENT_BYTES} bytes (UTF-8)`,
  });
