#!/usr/bin/env node
// The `vetted-comparison` bin. A committed file rather than `dist/cli.js` itself: package managers link
// bins when they install, and in a fresh clone of the workspace `dist/` is not built yet.
import "../dist/cli.js";
