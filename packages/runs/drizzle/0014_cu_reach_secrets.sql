ALTER TABLE `runs_cu_actions` ADD `secret_sealed` text;--> statement-breakpoint
ALTER TABLE `runs_cu_actions` ADD `reach` text;--> statement-breakpoint
ALTER TABLE `runs_cu_sessions` ADD `instruction_sealed` text;