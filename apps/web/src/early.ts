import { startEarlyRows } from "./features/fileorg/first-rows.js";

/**
 * The console's early entry: a few kB the browser loads beside the main bundle and runs first, so on a
 * review page its rows are on their way, and its own code downloading, while the main bundle is still
 * downloading and starting.
 */
if (startEarlyRows(window.location)) {
  const script = document.querySelector<HTMLScriptElement>("script[data-review-chunks]");
  for (const href of script?.dataset.reviewChunks?.split(" ") ?? []) {
    if (href === "") continue;
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.crossOrigin = "";
    link.href = href;
    document.head.append(link);
  }
}
