ALTER TABLE `runs_templates` ADD `template_family_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `runs_templates` ADD `parent_template_id` text;--> statement-breakpoint
ALTER TABLE `runs_templates` ADD `family_version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `runs_templates` ADD `status` text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE `runs_templates` ADD `recommended` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `runs_templates` ADD `change_note` text;--> statement-breakpoint
UPDATE `runs_templates` SET `template_family_id` = `id` WHERE `template_family_id` = '';--> statement-breakpoint
CREATE UNIQUE INDEX `runs_templates_family_version` ON `runs_templates` (`template_family_id`,`family_version`);--> statement-breakpoint
CREATE UNIQUE INDEX `runs_templates_one_recommended` ON `runs_templates` (`template_family_id`) WHERE recommended = 1;--> statement-breakpoint
CREATE UNIQUE INDEX `runs_templates_one_active` ON `runs_templates` (`template_family_id`) WHERE status = 'active';