ALTER TABLE `runs_automation_tasks` ADD `owner_process` text;--> statement-breakpoint
ALTER TABLE `runs_automation_tasks` ADD `process` text;