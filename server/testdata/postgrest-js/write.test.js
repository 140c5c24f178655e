// Writes with select(): insert, bulk insert, upsert, update and delete,
// on schema js (reset by postgrest_js_reset.sql before each run: lists
// home and work, todos milk, bins and report with ids 1 to 3). The tests
// of this file run in order and build on each other.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { js, code } from './client.js'

test('insert one row, returning it with an embed', async () => {
  const { data, error, status } = await js
    .from('todos')
    .insert({ list_id: 1, slug: 'eggs', title: 'Buy eggs' })
    .select('id, slug, priority, done, list:lists(name)')
  assert.equal(error, null)
  assert.equal(status, 201)
  assert.deepEqual(data, [{ id: 4, slug: 'eggs', priority: 3, done: false, list: { name: 'home' } }])
})

test('insert without select returns nothing', async () => {
  const { data, error, status } = await js.from('todos').insert({ list_id: 2, slug: 'mail', title: 'Answer mail' })
  assert.deepEqual([data, error, status], [null, null, 201])
})

test('bulk insert with column defaults for missing keys, as single()', async () => {
  // As in PostgREST, every row draws its id's default, the one that gives
  // its id too: after eggs (4) and mail (5), call draws 6 and plan gets 7.
  const bulk = await js
    .from('todos')
    .insert(
      [
        { id: 50, list_id: 2, slug: 'call', title: 'Call Ann', priority: 5 },
        { list_id: 2, slug: 'plan', title: 'Plan the week' },
      ],
      { defaultToNull: false, count: 'exact' },
    )
    .select('id, slug, priority, tags')
  assert.equal(bulk.error, null)
  assert.equal(bulk.count, 2)
  assert.deepEqual(bulk.data, [
    { id: 50, slug: 'call', priority: 5, tags: [] },
    { id: 7, slug: 'plan', priority: 3, tags: [] },
  ])

  const one = await js.from('todos').insert({ list_id: 1, slug: 'tea', title: 'Make tea' }).select('slug').single()
  assert.deepEqual(one.data, { slug: 'tea' })
})

test('upsert on a unique column: merge, then ignore duplicates', async () => {
  const merged = await js
    .from('todos')
    .upsert(
      [
        { slug: 'milk', title: 'Buy oat milk', list_id: 1 },
        { slug: 'bread', title: 'Buy bread', list_id: 1 },
      ],
      { onConflict: 'slug' },
    )
    .select('slug, title')
    .order('slug')
  assert.equal(merged.error, null)
  assert.deepEqual(merged.data, [
    { slug: 'bread', title: 'Buy bread' },
    { slug: 'milk', title: 'Buy oat milk' },
  ])

  const ignored = await js
    .from('todos')
    .upsert({ slug: 'milk', title: 'ignored', list_id: 1 }, { onConflict: 'slug', ignoreDuplicates: true })
    .select('slug')
  assert.deepEqual(ignored.data, [])
  const kept = await js.from('todos').select('title').eq('slug', 'milk').single()
  assert.equal(kept.data.title, 'Buy oat milk')
})

test('update with filters, returning the rows', async () => {
  const { data, error, status } = await js
    .from('todos')
    .update({ done: true })
    .eq('list_id', 2)
    .eq('done', false)
    .select('slug, done')
    .order('slug')
  assert.equal(error, null)
  assert.equal(status, 200)
  assert.deepEqual(data, [
    { slug: 'call', done: true },
    { slug: 'mail', done: true },
    { slug: 'plan', done: true },
    { slug: 'report', done: true },
  ])
})

test('update one row as maybeSingle()', async () => {
  const { data, error } = await js.from('todos').update({ priority: 1 }).eq('slug', 'tea').select('slug, priority').maybeSingle()
  assert.equal(error, null)
  assert.deepEqual(data, { slug: 'tea', priority: 1 })
})

test('delete, returning the deleted rows, with a count', async () => {
  const { data, error, count } = await js
    .from('todos')
    .delete({ count: 'exact' })
    .eq('done', true)
    .eq('list_id', 2)
    .select('slug')
    .order('slug')
  assert.equal(error, null)
  assert.equal(count, 4)
  assert.deepEqual(data.map((r) => r.slug), ['call', 'mail', 'plan', 'report'])
  const left = await js.from('todos').select('slug').order('slug')
  assert.deepEqual(left.data.map((r) => r.slug), ['bins', 'bread', 'eggs', 'milk', 'tea'])
})

test('a write the database refuses: constraint error objects', async () => {
  const dup = await js.from('todos').insert({ list_id: 1, slug: 'milk', title: 'again' }).select()
  assert.equal(dup.status, 409)
  assert.equal(dup.error.code, '23505')
  assert.match(dup.error.message, /todos_slug_key/)
  assert.match(dup.error.details, /\(slug\)=\(milk\) already exists/)

  const check = await js.from('todos').update({ priority: 9 }).eq('slug', 'milk')
  assert.equal(check.status, 400)
  assert.equal(check.error.code, '23514')

  const fk = await js.from('todos').insert({ list_id: 42, slug: 'lost', title: 'Lost' })
  assert.equal(fk.status, 409)
  assert.equal(fk.error.code, '23503')

  const body = await js.from('todos').insert([{ slug: 'a', title: 'A' }, { slug: 'b', titel: 'B' }])
  assert.equal(body.status, 400)
  // The client sends columns= with every key of every row.
  assert.equal(body.error.code, code('204'))
  assert.equal(body.error.message, "Could not find the 'titel' column of 'todos' in the schema cache")
})
