CREATE TABLE `runs_cu_actions` (
	`id` text PRIMARY KEY NOT NULL,
	`cu_session_id` text NOT NULL,
	`seq` integer NOT NULL,
	`name` text NOT NULL,
	`args` text NOT NULL,
	`rationale` text NOT NULL,
	`risk_level` text NOT NULL,
	`require_confirmation` integer NOT NULL,
	`action_digest` text NOT NULL,
	`provider_domain` text,
	`status` text NOT NULL,
	`confirmation` text,
	`result` text,
	`claimed_by` text,
	`claimed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `runs_cu_actions_session_idx` ON `runs_cu_actions` (`cu_session_id`,`seq`);--> statement-breakpoint
CREATE TABLE `runs_cu_evidence` (
	`id` text PRIMARY KEY NOT NULL,
	`cu_session_id` text NOT NULL,
	`action_id` text,
	`kind` text NOT NULL,
	`path` text NOT NULL,
	`content_type` text NOT NULL,
	`bytes` integer NOT NULL,
	`sha256` text NOT NULL,
	`url` text,
	`summary` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `runs_cu_evidence_session_idx` ON `runs_cu_evidence` (`cu_session_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `runs_cu_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`instruction` text NOT NULL,
	`session_id` text,
	`planner` text NOT NULL,
	`metadata` text NOT NULL,
	`action_count` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `runs_cu_sessions_created_idx` ON `runs_cu_sessions` (`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `runs_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`mode` text NOT NULL,
	`start_url` text NOT NULL,
	`current_url` text,
	`storage_state_from` text,
	`storage_state_path` text,
	`owner` text NOT NULL,
	`events` text NOT NULL,
	`event_count` integer NOT NULL,
	`draft` text,
	`artifacts` text NOT NULL,
	`error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `runs_sessions_created_idx` ON `runs_sessions` (`created_at`,`id`);