import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  AutomationTask,
  CommandInfo,
  isTaskTerminal,
  type OutputEntry,
  RunTaskInput,
  TASK_STATUSES,
} from "@vetted/runs/automation";
import type { AppDeps, AppEnv } from "../deps.js";
import { resumeId, streamEvents } from "../sse.js";
import {
  errorResponse,
  errorResponses,
  IdempotencyHeaders,
  idParam,
  jsonBody,
  jsonResponse,
  PageQuery,
  pageOf,
  sseResponses,
} from "./common.js";

const TaskParams = z.object({ task_id: idParam("task_id") });
const TaskPage = pageOf(AutomationTask, "AutomationTaskPage");
const CommandList = pageOf(CommandInfo, "AutomationCommandList");

const commands = createRoute({
  method: "get",
  path: "/api/automation/commands",
  tags: ["automation"],
  summary: "The allowlist of automation commands (built-ins and the operator's)",
  responses: { 200: jsonResponse("Every command", CommandList) },
});
const run = createRoute({
  method: "post",
  path: "/api/automation/run",
  tags: ["automation"],
  summary: "Queue a task of an allowlisted command",
  request: { headers: IdempotencyHeaders, body: jsonBody(RunTaskInput) },
  responses: {
    202: jsonResponse("The queued task (or the first answer to this Idempotency-Key)", AutomationTask),
    ...errorResponses(400, 403, 404, 409, 422),
    429: errorResponse("QUEUE_FULL: the queue holds VETTED_AUTOMATION_QUEUE_MAX tasks; see Retry-After"),
  },
});
const list = createRoute({
  method: "get",
  path: "/api/automation/tasks",
  tags: ["automation"],
  summary: "List tasks, newest first, optionally by status or command",
  request: {
    query: PageQuery.extend({
      status: z.enum(TASK_STATUSES).optional(),
      command_id: z.string().min(1).max(200).optional(),
    }),
  },
  responses: { 200: jsonResponse("A page of tasks", TaskPage), ...errorResponses(400) },
});
const get = createRoute({
  method: "get",
  path: "/api/automation/tasks/{task_id}",
  tags: ["automation"],
  summary: "Get a task",
  request: { params: TaskParams },
  responses: { 200: jsonResponse("The task", AutomationTask), ...errorResponses(404) },
});
const cancel = createRoute({
  method: "post",
  path: "/api/automation/tasks/{task_id}/cancel",
  tags: ["automation"],
  summary: "Cancel a task (a running one's process group gets SIGTERM, then SIGKILL)",
  request: { params: TaskParams },
  responses: { 200: jsonResponse("The task after the cancel", AutomationTask), ...errorResponses(404, 409) },
});
const stream = createRoute({
  method: "get",
  path: "/api/automation/tasks/{task_id}/stream",
  tags: ["automation"],
  summary: "The task's output lines as server-sent events (honours Last-Event-ID; ends with an `end` event)",
  request: { params: TaskParams },
  responses: sseResponses("text/event-stream of `line` events, then one `end` event carrying the task"),
});

/** Every `/api/automation` route. */
export function createAutomationRoutes(deps: AppDeps) {
  const { automation } = deps;
  return new OpenAPIHono<AppEnv>()
    .openapi(commands, (c) => c.json({ items: automation.listCommands(), next_cursor: null }, 200))
    .openapi(run, async (c) =>
      c.json(
        await automation.runCommand(c.req.valid("json"), {
          idempotencyKey: c.req.valid("header")["idempotency-key"],
        }),
        202,
      ),
    )
    .openapi(list, async (c) => c.json(await automation.listTasks(c.req.valid("query")), 200))
    .openapi(get, async (c) => c.json(await automation.getTask(c.req.valid("param").task_id), 200))
    .openapi(cancel, async (c) => c.json(await automation.cancelTask(c.req.valid("param").task_id), 200))
    .openapi(stream, async (c) => {
      const taskId = c.req.valid("param").task_id;
      const task = await automation.getTask(taskId); // 404 before the stream starts
      const start = resumeId(c, undefined);
      return streamEvents<OutputEntry>(c, {
        source: {
          replay: (afterId) => automation.listOutput(taskId, afterId),
          subscribe: (listener) =>
            automation.subscribeOutput(taskId, (entries) => {
              for (const entry of entries) if (entry.seq > start) listener(entry);
            }),
        },
        idOf: (entry) => entry.seq,
        frames: async (entry) =>
          entry.kind === "end"
            ? [{ event: "end", data: JSON.stringify(await automation.getTask(taskId)) }]
            : [{ event: "line", data: JSON.stringify(entry) }],
        isLast: (entry) => entry.kind === "end",
        endAfterReplay: isTaskTerminal(task.status),
        heartbeatMs: deps.sseHeartbeatMs,
      });
    });
}
