ALTER TABLE `fileorg_conflicts` ADD `original` text;--> statement-breakpoint
ALTER TABLE `fileorg_rows` ADD `unit_id` text;--> statement-breakpoint
ALTER TABLE `fileorg_rows` ADD `unit` text;--> statement-breakpoint
CREATE INDEX `fileorg_rows_unit_idx` ON `fileorg_rows` (`job_id`,`unit_id`);