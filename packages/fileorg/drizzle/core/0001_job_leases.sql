ALTER TABLE `fileorg_jobs` ADD `lease_owner` text;--> statement-breakpoint
ALTER TABLE `fileorg_jobs` ADD `lease_expires_at` integer;