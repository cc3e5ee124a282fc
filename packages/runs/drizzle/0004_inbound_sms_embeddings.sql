CREATE TABLE `runs_inbound_callbacks` (
	`id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`outcome` text NOT NULL,
	`reason` text,
	`provider_message_id` text,
	`sender` text,
	`recipient` text,
	`run_id` text,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `runs_inbound_callbacks_received_idx` ON `runs_inbound_callbacks` (`received_at`,`id`);--> statement-breakpoint
CREATE TABLE `runs_run_embeddings` (
	`run_id` text PRIMARY KEY NOT NULL,
	`model` text NOT NULL,
	`dimension` integer NOT NULL,
	`vector` blob NOT NULL,
	`reason_codes` text NOT NULL,
	`failure_text` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `runs_run_embeddings_model_idx` ON `runs_run_embeddings` (`model`);--> statement-breakpoint
ALTER TABLE `runs_inbound_messages` ADD `provider` text;--> statement-breakpoint
ALTER TABLE `runs_inbound_messages` ADD `provider_message_id` text;--> statement-breakpoint
ALTER TABLE `runs_inbound_messages` ADD `recipient` text;--> statement-breakpoint
CREATE UNIQUE INDEX `runs_inbound_messages_provider_idx` ON `runs_inbound_messages` (`provider`,`provider_message_id`);