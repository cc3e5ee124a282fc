CREATE TABLE `runs_browser_states` (
	`run_id` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`storage_state` text NOT NULL,
	`saved_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `runs_evidence` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`seq` integer NOT NULL,
	`step_id` text NOT NULL,
	`step_type` text NOT NULL,
	`outcome` text NOT NULL,
	`started_at` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`detail` text NOT NULL,
	`screenshots` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `runs_evidence_run_seq_idx` ON `runs_evidence` (`run_id`,`seq`);--> statement-breakpoint
CREATE INDEX `runs_evidence_step_idx` ON `runs_evidence` (`run_id`,`step_id`);--> statement-breakpoint
ALTER TABLE `runs_runs` ADD `session_id` text;