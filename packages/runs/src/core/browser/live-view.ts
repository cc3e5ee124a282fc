import type { CDPSession, Page } from "playwright-core";

/** One frame of a page's screencast: a JPEG (base64) and the page viewport it shows, in CSS pixels. */
export interface LiveFrame {
  /** The JPEG, base64-encoded. */
  data: string;
  /** The page viewport the frame shows (CSS pixels): input coordinates are in this space. */
  width: number;
  height: number;
  /** When the frame was taken (ms since the epoch). */
  at: number;
}

/** One input a person sends to a taken-over page; coordinates are CSS pixels of the page viewport. */
export type LiveInput =
  | { type: "click"; x: number; y: number; button?: "left" | "right" | "middle" | undefined }
  | { type: "scroll"; x: number; y: number; dx: number; dy: number }
  | { type: "key"; key: string }
  | { type: "type"; text: string };

/** What {@link Screencast} reads frames from: a CDP session on the page, opened for it and closed after. */
interface ScreencastFrameEvent {
  data: string;
  sessionId: number;
  metadata: { deviceWidth: number; deviceHeight: number; timestamp?: number };
}

/**
 * A page's screencast (CDP `Page.startScreencast`, JPEG) shared by its viewers: started with the first,
 * stopped with the last. Each frame is acknowledged no sooner than `1000 / fps` ms after it came, which
 * caps the rate; a new viewer gets the latest frame at once, and a still of the page is asked for with the
 * start (not after it), so the first frame never waits on the page changing nor on an extra round trip.
 * Given the page's own CDP session (`shared`, the one its run already opened), it sends on that one and
 * leaves it attached when it stops; otherwise it opens a session of its own and detaches it.
 */
export class Screencast {
  private readonly listeners = new Set<(frame: LiveFrame) => void>();
  private session: Promise<CDPSession> | undefined;
  private last: LiveFrame | undefined;
  private stopped = false;
  private stopping: Promise<void> | undefined;
  private readonly onFrame = (event: ScreencastFrameEvent) => this.frame(event);

  constructor(
    private readonly page: Page,
    private readonly fps = 5,
    private readonly shared?: Promise<CDPSession> | undefined,
  ) {}

  /** Adds a viewer; answers its unsubscribe. */
  subscribe(listener: (frame: LiveFrame) => void): () => void {
    this.listeners.add(listener);
    if (this.last !== undefined) listener(this.last);
    if (this.session === undefined) {
      this.session = this.start();
      this.session.catch(() => undefined); // a page that closed meanwhile: its viewers end with its lease
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) void this.stop();
    };
  }

  /** Whether any viewer is left. */
  get watched(): boolean {
    return this.listeners.size > 0;
  }

  private emit(frame: LiveFrame): void {
    this.last = frame;
    for (const listener of this.listeners) listener(frame);
  }

  /** Emits a screencast frame, and acknowledges it no sooner than the frame rate allows. */
  private frame(event: ScreencastFrameEvent): void {
    if (this.stopped) return;
    const { deviceWidth, deviceHeight } = event.metadata;
    this.emit({ data: event.data, width: deviceWidth, height: deviceHeight, at: Date.now() });
    const gap = Math.max(0, Math.floor(1000 / Math.max(1, this.fps)));
    setTimeout(() => {
      if (this.stopped) return;
      void this.session
        ?.then((s) => s.send("Page.screencastFrameAck", { sessionId: event.sessionId }))
        .catch(() => undefined);
    }, gap);
  }

  private async start(): Promise<CDPSession> {
    const own = this.shared?.catch(() => undefined);
    const session = (await own) ?? (await this.page.context().newCDPSession(this.page));
    session.on("Page.screencastFrame", this.onFrame);
    const started = session.send("Page.startScreencast", { format: "jpeg", quality: 60, everyNthFrame: 1 });
    // Sent with the start: CDP answers a session's commands in order, so the still comes right after it.
    const still = this.last === undefined ? this.captureOnce(session) : Promise.resolve();
    await Promise.all([started, still]);
    return session;
  }

  /** One still of the page now: the first frame of a page that does not repaint. */
  private async captureOnce(session: CDPSession): Promise<void> {
    const shot = await session
      .send("Page.captureScreenshot", { format: "jpeg", quality: 60 })
      .catch(() => undefined);
    const size = this.page.viewportSize();
    if (shot === undefined || this.last !== undefined || this.stopped || size === null) return;
    this.emit({ data: shot.data, width: size.width, height: size.height, at: Date.now() });
  }

  /** Stops the screencast and detaches its session (not a shared one). */
  stop(): Promise<void> {
    this.stopping ??= this.end();
    return this.stopping;
  }

  private async end(): Promise<void> {
    this.stopped = true;
    this.listeners.clear();
    const session = await this.session?.catch(() => undefined);
    session?.off("Page.screencastFrame", this.onFrame);
    await session?.send("Page.stopScreencast").catch(() => undefined);
    if (session !== undefined && session !== (await this.shared?.catch(() => undefined)))
      await session.detach().catch(() => undefined);
  }

  /** Whether it was stopped (a new one is needed for later viewers). */
  get ended(): boolean {
    return this.stopped;
  }
}

const BUTTONS = { left: 1, right: 2, middle: 4 } as const;

/**
 * Sends one input to the page through CDP: a click as a mouse move, press and release
 * (`Input.dispatchMouseEvent`), a scroll as a mouse wheel event, text as `Input.insertText` and a key press
 * (`Enter`, `Tab`, `ArrowDown`, a character…) as key down and up (`Input.dispatchKeyEvent`, through
 * Playwright's keyboard, which knows each key's code and the text it types).
 */
export async function dispatchInput(page: Page, cdp: CDPSession, input: LiveInput): Promise<void> {
  switch (input.type) {
    case "click": {
      const button = input.button ?? "left";
      const at = { x: input.x, y: input.y };
      const press = { ...at, button, buttons: BUTTONS[button], clickCount: 1 };
      // Sent at once: a session delivers its commands in order, so the page sees move, press, release.
      await Promise.all([
        cdp.send("Input.dispatchMouseEvent", { type: "mouseMoved", ...at, button: "none" }),
        cdp.send("Input.dispatchMouseEvent", { type: "mousePressed", ...press }),
        cdp.send("Input.dispatchMouseEvent", { type: "mouseReleased", ...press, buttons: 0 }),
      ]);
      return;
    }
    case "scroll":
      await cdp.send("Input.dispatchMouseEvent", {
        type: "mouseWheel",
        x: input.x,
        y: input.y,
        deltaX: input.dx,
        deltaY: input.dy,
      });
      return;
    case "key":
      await page.keyboard.press(input.key);
      return;
    case "type":
      await cdp.send("Input.insertText", { text: input.text });
      return;
  }
}
