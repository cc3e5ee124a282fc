ALTER TABLE `fileorg_rows` ADD `source_dev` integer;--> statement-breakpoint
ALTER TABLE `fileorg_rows` ADD `source_ino` integer;--> statement-breakpoint
ALTER TABLE `fileorg_rows` ADD `source_ctime` integer;