-- Resets the rows cases/computed_writes.case changes.
truncate test.cf_notes, test.cf_tags;
insert into test.cf_notes values (1, 'call the plumber', 5), (2, 'buy milk', 1), (3, 'file taxes', 7);
insert into test.cf_tags values (1, 'home'), (2, 'work');
