-- Resets the rows cases/represent_writes.case changes.
truncate test.dr_orders;
insert into test.dr_orders values
  (1, 255, '2024-01-01 00:00:00+00', 'first'),
  (2, 65280, null, 'second');
