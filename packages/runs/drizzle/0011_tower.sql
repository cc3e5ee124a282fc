CREATE TABLE `runs_tower_drafts` (
	`session_id` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL,
	`steps` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `runs_tower_replays` (
	`run_id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`flow_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `runs_tower_replays_session_idx` ON `runs_tower_replays` (`session_id`,`created_at`);