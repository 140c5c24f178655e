-- Resets the rows of the w_ tables (fixture.sql) before each write_*.case
-- file, so every file starts from these rows and w_items ids from 4.
truncate test.w_items, test.w_pairs, test.w_users, test.w_checked,
  test.w_parents, test.w_children, test.w_tasks, test.w_docs,
  test.w_restricted, test.w_readonly, test.w_bulk, test.w_parts, test.w_loose,
  test.w_accounts, test.w_defaults, test."W_Mixed", test.w_deferred, test.w_teams, test.w_coaches
  restart identity cascade;

insert into test.w_items (name, qty, note, created) values
  ('apple', 5, 'red', '2026-01-01'),
  ('banana', 12, null, '2026-01-02'),
  ('cherry', 1, 'small', '2026-01-03');
insert into test.w_pairs values (1, 'x', 'one-x'), (1, 'y', 'one-y'), (2, 'x', 'two-x');
insert into test.w_users values
  (1, 'ann@example.com', 'Ann', 'acme', 'ann'),
  (2, 'bob@example.com', 'Bob', 'acme', 'bob'),
  (3, 'cid@example.com', 'Cid', 'globex', 'cid');
insert into test.w_checked values (1, 'first', 10), (2, 'second', 0);
insert into test.w_parents values (1, 'Alpha'), (2, 'Beta'), (3, 'Gamma');
insert into test.w_children values (1, 1, 'a1'), (2, 1, 'a2'), (3, 2, 'b1');
insert into test.w_tasks values
  (1, 'wash', false, 3), (2, 'dry', false, 1), (3, 'fold', false, 2),
  (4, 'iron', true, 2), (5, 'store', false, null), (6, 'rest', true, 1);
insert into test.w_docs values (1, '{"kind": "note", "n": 1}', '{a}'), (2, null, '{}');
insert into test.w_restricted values (1, 'visible', 'classified');
insert into test.w_readonly values (1, 'fixed');
insert into test.w_parts values ('eu', 1, 'eu-one'), ('eu', 2, 'eu-two'), ('us', 1, 'us-one');
insert into test.w_loose values ('1', '0'), (null, null);
insert into test.w_accounts values (1, 'ann@example.com', 'pw-ann'), (2, 'bob@example.com', 'pw-bob'),
  (3, 'cid@example.com', 'pw-cid');
insert into test.w_defaults (code, own, label, note) values (7, 8, 'first', 'n1');
insert into test.w_deferred values (1, 'a', null), (2, 'b', null);
