CREATE TABLE `fileorg_inbox_seen` (
	`watch_source_id` text NOT NULL,
	`path` text NOT NULL,
	`size` integer NOT NULL,
	`mtime` integer NOT NULL,
	`batch_id` text NOT NULL,
	`job_id` text,
	`analyzed_at` integer NOT NULL,
	PRIMARY KEY(`watch_source_id`, `path`)
);
--> statement-breakpoint
CREATE TABLE `fileorg_learned_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`signal_kind` text NOT NULL,
	`signal_value` text NOT NULL,
	`outcome_field` text NOT NULL,
	`outcome_value` text NOT NULL,
	`count` integer NOT NULL,
	`job_count` integer NOT NULL,
	`last_job_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fileorg_learned_rules_key` ON `fileorg_learned_rules` (`signal_kind`,`signal_value`,`outcome_field`,`outcome_value`);--> statement-breakpoint
CREATE INDEX `fileorg_learned_rules_signal` ON `fileorg_learned_rules` (`signal_kind`,`signal_value`);--> statement-breakpoint
CREATE TABLE `fileorg_preference_versions` (
	`family` text NOT NULL,
	`id` text NOT NULL,
	`version` integer NOT NULL,
	`data` text,
	`saved_at` integer NOT NULL,
	`actor` text NOT NULL,
	PRIMARY KEY(`family`, `id`, `version`)
);
--> statement-breakpoint
CREATE TABLE `fileorg_preferences` (
	`family` text NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`version` integer NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`family`, `id`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fileorg_preferences_name` ON `fileorg_preferences` (`family`,`name`);