-- The review queue reads each bucket of a job in (confidence, seq) order.
CREATE INDEX IF NOT EXISTS `fileorg_rows_review_queue_idx` ON `fileorg_rows` (`job_id`,`review_bucket`,`confidence`,`seq`);
