CREATE TABLE `fileorg_categories` (
	`name` text PRIMARY KEY NOT NULL,
	`target_template` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `fileorg_rows` ADD `applied_rules` text DEFAULT '[]' NOT NULL;