CREATE TABLE `fileorg_audit` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`job_id` text,
	`at` integer NOT NULL,
	`actor` text NOT NULL,
	`request_id` text,
	`action` text NOT NULL,
	`subject` text,
	`before` text,
	`after` text,
	`prev_hash` text NOT NULL,
	`hash` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fileorg_audit_job_idx` ON `fileorg_audit` (`job_id`,`id`);--> statement-breakpoint
CREATE TABLE `fileorg_conflicts` (
	`id` text PRIMARY KEY NOT NULL,
	`job_id` text NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`row_ids` text NOT NULL,
	`status` text NOT NULL,
	`resolution` text,
	`opened_at` integer NOT NULL,
	`resolved_at` integer
);
--> statement-breakpoint
CREATE INDEX `fileorg_conflicts_job_idx` ON `fileorg_conflicts` (`job_id`,`status`,`id`);--> statement-breakpoint
CREATE TABLE `fileorg_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`job_id` text NOT NULL,
	`seq` integer NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fileorg_events_job_seq_idx` ON `fileorg_events` (`job_id`,`seq`);--> statement-breakpoint
CREATE TABLE `fileorg_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`phase` text NOT NULL,
	`progress` real DEFAULT 0 NOT NULL,
	`manifest_job_id` text NOT NULL,
	`target_job_id` text,
	`retry_of` text,
	`params` text NOT NULL,
	`revision` integer,
	`plan_accumulator` text,
	`result` text,
	`error` text,
	`actor` text NOT NULL,
	`phase_durations` text,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fileorg_jobs_created_idx` ON `fileorg_jobs` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `fileorg_jobs_manifest_idx` ON `fileorg_jobs` (`manifest_job_id`,`kind`,`status`);--> statement-breakpoint
CREATE INDEX `fileorg_jobs_status_idx` ON `fileorg_jobs` (`status`);--> statement-breakpoint
CREATE TABLE `fileorg_journal` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`job_id` text NOT NULL,
	`row_id` text,
	`op` text NOT NULL,
	`from_path` text,
	`to_path` text NOT NULL,
	`sha256` text,
	`size` integer,
	`state` text NOT NULL,
	`error_code` text,
	`created_at` integer NOT NULL,
	`completed_at` integer,
	`signature` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fileorg_journal_job_idx` ON `fileorg_journal` (`job_id`,`state`);--> statement-breakpoint
CREATE INDEX `fileorg_journal_row_idx` ON `fileorg_journal` (`row_id`);--> statement-breakpoint
CREATE TABLE `fileorg_rows` (
	`id` text PRIMARY KEY NOT NULL,
	`job_id` text NOT NULL,
	`seq` integer NOT NULL,
	`source_path` text NOT NULL,
	`target_path` text NOT NULL,
	`target_key` text NOT NULL,
	`size` integer NOT NULL,
	`mtime` integer NOT NULL,
	`sha256` text,
	`mime` text,
	`category` text NOT NULL,
	`confidence` real NOT NULL,
	`action` text NOT NULL,
	`review_bucket` text NOT NULL,
	`reason_codes` text NOT NULL,
	`status` text NOT NULL,
	`edited` integer DEFAULT false NOT NULL,
	`target_edited` integer DEFAULT false NOT NULL,
	`blocked` integer DEFAULT false NOT NULL,
	`target_occupied` integer DEFAULT false NOT NULL,
	`source_changed` integer DEFAULT false NOT NULL,
	`duplicate_accepted` integer DEFAULT false NOT NULL,
	`conflict_ids` text NOT NULL,
	`plan_digest` text NOT NULL,
	`error` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fileorg_rows_job_seq_idx` ON `fileorg_rows` (`job_id`,`seq`);--> statement-breakpoint
CREATE INDEX `fileorg_rows_bucket_idx` ON `fileorg_rows` (`job_id`,`review_bucket`,`seq`);--> statement-breakpoint
CREATE INDEX `fileorg_rows_status_idx` ON `fileorg_rows` (`job_id`,`status`,`seq`);--> statement-breakpoint
CREATE INDEX `fileorg_rows_category_idx` ON `fileorg_rows` (`job_id`,`category`,`seq`);--> statement-breakpoint
CREATE INDEX `fileorg_rows_target_key_idx` ON `fileorg_rows` (`job_id`,`target_key`);--> statement-breakpoint
CREATE INDEX `fileorg_rows_sha_idx` ON `fileorg_rows` (`job_id`,`sha256`);