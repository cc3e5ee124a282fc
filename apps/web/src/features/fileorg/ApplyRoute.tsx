import { useParams } from "@tanstack/react-router";
import { ApplyPage } from "./ApplyPage.js";

/** `/files/jobs/$jobId/apply`. */
export function ApplyRoute() {
  const { jobId } = useParams({ strict: false }) as { jobId: string };
  return <ApplyPage jobId={jobId} />;
}
