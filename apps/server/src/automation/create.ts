import type { FileorgEngine } from "@vetted/fileorg";
import {
  type AutomationEngine,
  type AutomationEngineOptions,
  createAutomationEngine,
  createProcessCommand,
  createReplayFlowCommand,
  loadCommandsFile,
  type RunStarter,
} from "@vetted/runs/automation";
import type { AutomationSettings } from "../config.js";
import type { Logger } from "../logger.js";
import { createAnalyzeFolderCommand, createValidateComparisonCommand } from "./built-ins.js";

/** What the server's automation lane is composed of. */
export interface ServerAutomationOptions {
  db: AutomationEngineOptions["db"];
  secretsKey: Buffer;
  runs: RunStarter;
  fileorg: FileorgEngine;
  allowedRoots: readonly string[];
  settings: AutomationSettings;
  /** The environment operator commands' `env_allow` picks from. */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Extra writes in the transaction of each task status change (the webhooks outbox). */
  onTransition?: AutomationEngineOptions["onTransition"];
}

/**
 * The automation engine with the built-ins (`replay-flow`, `analyze-folder`, `validate-comparison`) and the
 * operator commands of `VETTED_AUTOMATION_COMMANDS`. @throws COMMANDS_FILE_INVALID naming the bad entry
 */
export function createServerAutomation(o: ServerAutomationOptions): AutomationEngine {
  const builtIns = [
    createReplayFlowCommand(o.runs),
    createAnalyzeFolderCommand(o.fileorg, o.allowedRoots),
    createValidateComparisonCommand(o.allowedRoots),
  ];
  const file = o.settings.commandsFile;
  const specs =
    file === undefined
      ? []
      : loadCommandsFile(
          file,
          o.allowedRoots,
          builtIns.map((c) => c.id),
        );
  const operator = specs.map((spec) =>
    createProcessCommand(spec, {
      env: o.env,
      killGraceMs: o.settings.killGraceMs,
      allowedRoots: o.allowedRoots,
    }),
  );
  return createAutomationEngine({
    db: o.db,
    secretsKey: o.secretsKey,
    commands: [...builtIns, ...operator],
    maxParallel: o.settings.maxParallel,
    queueMax: o.settings.queueMax,
    leaseMs: o.settings.leaseMs,
    killGraceMs: o.settings.killGraceMs,
    retryBaseMs: o.settings.retryBaseMs,
    ...(o.onTransition === undefined ? {} : { onTransition: o.onTransition }),
    onError: (message, err) => o.logger.error(message, { err }),
  });
}
