import { useEffect, useState } from "react";
import { attemptUrl, retryDelay } from "./evidence-retry.js";

type Phase = "loading" | "waiting" | "loaded" | "missing";

/**
 * An evidence screenshot that may not exist yet. The image stays hidden until it has loaded (so a failed
 * load never shows a broken-image icon); a failed load waits and tries again with growing waits, then says
 * the screenshot is not available. A change of `refresh` (a new run event: evidence may just have been
 * written) tries again at once, and so does the "Try again" button.
 */
export function EvidenceImage({
  src,
  alt,
  label,
  refresh,
}: {
  src: string;
  alt: string;
  label: string;
  refresh: number;
}) {
  const [phase, setPhase] = useState<Phase>("loading");
  const [failures, setFailures] = useState(0);
  const [attempt, setAttempt] = useState(0);
  const retry = () => {
    setAttempt((a) => a + 1);
    setPhase("loading");
  };
  useEffect(() => {
    if (phase !== "waiting") return;
    const timer = setTimeout(() => {
      setAttempt((a) => a + 1);
      setPhase("loading");
    }, retryDelay(failures) ?? 0);
    return () => clearTimeout(timer);
  }, [phase, failures]);
  // A new `refresh` value (adjusted during render, React's way to follow a prop) starts a new round.
  const [seenRefresh, setSeenRefresh] = useState(refresh);
  if (refresh !== seenRefresh) {
    setSeenRefresh(refresh);
    if (phase === "missing" || phase === "waiting") {
      setFailures(0);
      setAttempt((a) => a + 1);
      setPhase("loading");
    }
  }
  const failed = () => {
    const next = failures + 1;
    setFailures(next);
    setPhase(retryDelay(next) === undefined ? "missing" : "waiting");
  };
  return (
    <div className="evidence-shot" data-phase={phase}>
      {phase === "loading" || phase === "loaded" ? (
        <img
          key={attempt}
          alt={alt}
          src={attemptUrl(src, attempt)}
          hidden={phase !== "loaded"}
          onLoad={() => setPhase("loaded")}
          onError={failed}
        />
      ) : null}
      {phase === "loaded" ? null : (
        <div className="evidence-placeholder" role="status">
          {phase === "missing" ? (
            <>
              Screenshot {label} is not available (it was not written).{" "}
              <button type="button" onClick={retry}>
                Try again
              </button>
            </>
          ) : (
            `Screenshot ${label}: waiting for it to be written…`
          )}
        </div>
      )}
    </div>
  );
}
