CREATE TABLE `fileorg_row_texts` (
	`row_id` text PRIMARY KEY NOT NULL,
	`job_id` text NOT NULL,
	`excerpt` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fileorg_row_texts_job_idx` ON `fileorg_row_texts` (`job_id`);--> statement-breakpoint
ALTER TABLE `fileorg_rows` ADD `meta` text;