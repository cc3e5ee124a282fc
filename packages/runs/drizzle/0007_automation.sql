CREATE TABLE `runs_automation_output` (
	`task_id` text NOT NULL,
	`seq` integer NOT NULL,
	`kind` text NOT NULL,
	`line` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `runs_automation_output_task_seq_idx` ON `runs_automation_output` (`task_id`,`seq`);--> statement-breakpoint
CREATE TABLE `runs_automation_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`command_id` text NOT NULL,
	`status` text NOT NULL,
	`params` text NOT NULL,
	`attempt` integer NOT NULL,
	`max_attempts` integer NOT NULL,
	`exit_code` integer,
	`message` text,
	`reason` text,
	`output_tail` text NOT NULL,
	`output_seq` integer NOT NULL,
	`cancel_requested` integer NOT NULL,
	`not_before` integer NOT NULL,
	`owner` text,
	`lease_until` integer,
	`idempotency_key` text,
	`request_hash` text,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `runs_automation_tasks_created_idx` ON `runs_automation_tasks` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `runs_automation_tasks_status_idx` ON `runs_automation_tasks` (`status`,`not_before`);--> statement-breakpoint
CREATE UNIQUE INDEX `runs_automation_tasks_idem_idx` ON `runs_automation_tasks` (`idempotency_key`);