import { describe, expect, it } from "vitest";
import { currentOwner, isOwnerGone, ownerOfToken, ownerTag, readProcStat } from "./owner-process.js";

describe("lease owner processes", () => {
  const me = currentOwner();

  it("reads its own token back, and names no owner in a token of another shape", () => {
    expect(ownerOfToken(`wrk_abc@${ownerTag(me)}#12`)).toEqual(me);
    expect(ownerOfToken("wrk_dead#1")).toBeUndefined();
    expect(ownerOfToken("wrk_x@12:34#1")).toBeUndefined();
  });

  it("knows a process of this host and boot is gone, or that its pid now names a later process", () => {
    expect(isOwnerGone(me)).toBe(false);
    expect(isOwnerGone({ ...me, pid: 4_194_305 })).toBe(true); // above Linux's pid_max: no such process
    expect(isOwnerGone({ ...me, start: me.start - 1 })).toBe(true); // this pid, an earlier process
    expect(isOwnerGone({ ...me, pid: 1, start: readProcStat(1)?.start ?? 0 })).toBe(false); // init lives
  });

  it("never judges an owner of another host or boot, or one whose start time is unknown", () => {
    expect(isOwnerGone({ ...me, pid: 4_194_305, host: `${me.host}-elsewhere` })).toBe(false);
    expect(isOwnerGone({ ...me, pid: 4_194_305, boot: "00000000-0000-0000-0000-000000000000" })).toBe(false);
    expect(isOwnerGone({ ...me, pid: 4_194_305, start: 0 })).toBe(false);
    expect(isOwnerGone(undefined)).toBe(false);
  });
});
