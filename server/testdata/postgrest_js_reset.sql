-- Resets the rows of schema js (fixture.sql) before each run of the
-- postgrest-js suite and compat_postgrest.case: todos ids from 4.
truncate js.todos, js.lists restart identity cascade;
insert into js.lists values (1, 'home', 'personal'), (2, 'work', 'shared');
insert into js.todos (list_id, slug, title, done, priority, tags) values
  (1, 'milk', 'Buy milk', false, 2, '{shop}'),
  (1, 'bins', 'Take out the bins', true, 4, '{}'),
  (2, 'report', 'Write the report', false, 1, '{desk,urgent}');
