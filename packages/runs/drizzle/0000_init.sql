CREATE TABLE `runs_events` (
	`run_id` text NOT NULL,
	`seq` integer NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`at` integer NOT NULL,
	PRIMARY KEY(`run_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `runs_flow_versions` (
	`flow_id` text NOT NULL,
	`version` integer NOT NULL,
	`name` text NOT NULL,
	`steps` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`flow_id`, `version`)
);
--> statement-breakpoint
CREATE TABLE `runs_flows` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`version` integer NOT NULL,
	`steps` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `runs_idempotency` (
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`run_id` text NOT NULL,
	`response` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`scope`, `key`)
);
--> statement-breakpoint
CREATE TABLE `runs_inbound_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text,
	`sender` text,
	`body` text NOT NULL,
	`received_at` integer NOT NULL,
	`consumed_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `runs_inbound_messages_received_idx` ON `runs_inbound_messages` (`received_at`,`id`);--> statement-breakpoint
CREATE TABLE `runs_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`flow_id` text NOT NULL,
	`flow_version` integer NOT NULL,
	`template_id` text,
	`steps` text NOT NULL,
	`policies` text NOT NULL,
	`params` text NOT NULL,
	`secrets` text NOT NULL,
	`status` text NOT NULL,
	`version` integer NOT NULL,
	`cursor` integer NOT NULL,
	`vars` text NOT NULL,
	`gate` text NOT NULL,
	`wait_context` text,
	`wait_expires_at` integer,
	`reason` text,
	`error` text,
	`otp_attempts` integer NOT NULL,
	`lease_owner` text,
	`lease_expires_at` integer,
	`deadline_at` integer NOT NULL,
	`resumed_at` integer,
	`step_started_at` integer,
	`step_started_cursor` integer,
	`event_seq` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `runs_runs_status_idx` ON `runs_runs` (`status`,`updated_at`);--> statement-breakpoint
CREATE INDEX `runs_runs_wait_idx` ON `runs_runs` (`status`,`wait_expires_at`);--> statement-breakpoint
CREATE INDEX `runs_runs_deadline_idx` ON `runs_runs` (`status`,`deadline_at`);--> statement-breakpoint
CREATE INDEX `runs_runs_created_idx` ON `runs_runs` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `runs_runs_template_idx` ON `runs_runs` (`template_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `runs_templates` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`flow_id` text NOT NULL,
	`flow_version` integer,
	`params_schema` text NOT NULL,
	`defaults` text NOT NULL,
	`policies` text NOT NULL,
	`version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
