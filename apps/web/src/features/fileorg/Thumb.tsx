import { previewKindOf } from "@vetted/fileorg/browser";
import { useEffect, useState } from "react";
import { authHeaders, getToken } from "../../api/client.js";

/** The URL of a row's thumbnail (WebP, rendered and cached by the server). */
export function thumbnailUrl(jobId: string, rowId: string, size: 64 | 128 | 256 | 512): string {
  return `/api/jobs/${encodeURIComponent(jobId)}/manifest/${encodeURIComponent(rowId)}/thumbnail?size=${size}`;
}

/**
 * With an API token an `<img>` cannot send it: the thumbnail is fetched with the header and shown from a
 * blob URL (revoked when the image goes). Without a token the browser loads the URL itself, lazily.
 */
function useSource(url: string, authed: boolean): { src: string | undefined; failed: boolean } {
  const [state, setState] = useState<{ src: string | undefined; failed: boolean }>({
    src: undefined,
    failed: false,
  });
  useEffect(() => {
    if (!authed) return;
    const abort = new AbortController();
    let blobUrl: string | undefined;
    fetch(url, { headers: authHeaders(), signal: abort.signal })
      .then(async (res) => {
        if (!res.ok) throw new Error(String(res.status));
        blobUrl = URL.createObjectURL(await res.blob());
        setState({ src: blobUrl, failed: false });
      })
      .catch(() => {
        if (!abort.signal.aborted) setState({ src: undefined, failed: true });
      });
    return () => {
      abort.abort();
      if (blobUrl !== undefined) URL.revokeObjectURL(blobUrl);
    };
  }, [url, authed]);
  return authed ? state : { src: url, failed: false };
}

/**
 * A row's thumbnail in a fixed `px` × `px` box (so nothing moves when it loads), lazy-loaded, with alt
 * text. Files without a thumbnail (not an image or PDF), and thumbnails the server refuses (the file
 * is gone, a renderer is not installed: `PREVIEW_UNAVAILABLE`), keep the empty box; `onUnavailable` lets
 * the caller show its text preview instead.
 */
export function Thumb(props: {
  jobId: string;
  rowId: string;
  mime: string | null | undefined;
  name: string;
  px: number;
  size: 64 | 128 | 256 | 512;
  onUnavailable?: () => void;
}) {
  const kind = previewKindOf(props.mime);
  const url = thumbnailUrl(props.jobId, props.rowId, props.size);
  const source = useSource(url, kind !== undefined && getToken() !== undefined);
  const [failed, setFailed] = useState(false);
  const box = { width: props.px, height: props.px };
  const { onUnavailable } = props;
  const gone = kind === undefined || failed || source.failed;
  useEffect(() => {
    if (gone) onUnavailable?.();
  }, [gone, onUnavailable]);
  if (gone || source.src === undefined) {
    return <span className="thumb thumb-empty" style={box} aria-hidden="true" />;
  }
  const alt = kind === "pdf" ? `First page of ${props.name}` : `Thumbnail of ${props.name}`;
  return (
    <img
      className="thumb"
      src={source.src}
      alt={alt}
      width={props.px}
      height={props.px}
      loading="lazy"
      decoding="async"
      onError={() => setFailed(true)}
    />
  );
}
