ALTER TABLE `fileorg_journal` ADD `copy_dev` integer;--> statement-breakpoint
ALTER TABLE `fileorg_journal` ADD `copy_ino` integer;