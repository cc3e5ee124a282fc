CREATE TABLE `runs_reconstruction_previews` (
	`id` text PRIMARY KEY NOT NULL,
	`strategy` text NOT NULL,
	`source` text NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `runs_reconstruction_previews_expires_idx` ON `runs_reconstruction_previews` (`expires_at`);