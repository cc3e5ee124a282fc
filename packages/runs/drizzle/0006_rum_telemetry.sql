CREATE TABLE `runs_rum_aggregates` (
	`metric` text NOT NULL,
	`path` text NOT NULL,
	`count` integer NOT NULL,
	`sum` real NOT NULL,
	`p75` real NOT NULL,
	`latest` real NOT NULL,
	`latest_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`metric`, `path`)
);
--> statement-breakpoint
CREATE TABLE `runs_rum_samples` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`metric` text NOT NULL,
	`path` text NOT NULL,
	`value` real NOT NULL,
	`rating` text,
	`navigation_type` text,
	`taken_at` integer NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `runs_rum_samples_key_idx` ON `runs_rum_samples` (`metric`,`path`,`id`);