ALTER TABLE `fileorg_rows` ADD `date` integer;--> statement-breakpoint
ALTER TABLE `fileorg_rows` ADD `date_source` text;