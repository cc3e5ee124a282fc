CREATE TABLE `runs_proof_campaigns` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`policy` text NOT NULL,
	`run_ids` text NOT NULL,
	`status` text NOT NULL,
	`report` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `runs_proof_campaigns_created_idx` ON `runs_proof_campaigns` (`created_at`,`id`);