// Reads: filters, embeds, ordering and ranges, single and maybeSingle,
// CSV and counts, on the shared fixture's library (schema test).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { client, code } from './client.js'

test('select with filters', async () => {
  const { data, error, status } = await client
    .from('books')
    .select('id, title')
    .gte('year', 1970)
    .lt('year', 1980)
    .in('author_id', [1, 2])
    .order('id')
  assert.equal(error, null)
  assert.equal(status, 200)
  assert.deepEqual(data, [
    { id: 2, title: 'Children of Dune' },
    { id: 4, title: 'The Dispossessed' },
  ])
})

test('pattern, null, array, JSON and logic filters', async () => {
  const like = await client.from('books').select('id').ilike('title', '%dune%').order('id')
  assert.deepEqual(like.data, [{ id: 1 }, { id: 2 }])
  const nulls = await client.from('books').select('id').is('pages', null)
  assert.deepEqual(nulls.data, [{ id: 7 }])
  const tags = await client.from('books').select('id').contains('tags', ['classic', 'desert'])
  assert.deepEqual(tags.data, [{ id: 1 }])
  const json = await client.from('books').select('id, series:meta->>series').eq('meta->>series', 'Dune').order('id')
  assert.deepEqual(json.data, [{ id: 1, series: 'Dune' }, { id: 2, series: 'Dune' }])
  const or = await client.from('books').select('id').or('id.eq.3,pages.gt.440').order('id')
  assert.deepEqual(or.data, [{ id: 2 }, { id: 3 }])
  const not = await client.from('authors').select('id').not('born', 'is', null).order('id')
  assert.deepEqual(not.data, [{ id: 1 }, { id: 2 }])
  const fts = await client.from('books').select('id').textSearch('title', 'seed')
  assert.deepEqual(fts.data, [{ id: 7 }])
})

test('embeds: to-one, to-many, inner join with a filter on the embed', async () => {
  const toOne = await client.from('books').select('title, author:authors(name)').eq('id', 1).single()
  assert.deepEqual(toOne.data, { title: 'Dune', author: { name: 'Frank Herbert' } })

  const toMany = await client
    .from('authors')
    .select('name, books(title)')
    .eq('id', 2)
    .order('title', { referencedTable: 'books', ascending: false })
  assert.equal(toMany.error, null)
  assert.deepEqual(toMany.data, [
    { name: 'Ursula K. Le Guin', books: [{ title: 'The Left Hand of Darkness' }, { title: 'The Dispossessed' }] },
  ])

  const inner = await client
    .from('books')
    .select('id, authors!inner(name)')
    .eq('authors.name', 'Octavia E. Butler')
    .order('id')
  assert.deepEqual(inner.data.map((b) => b.id), [5, 6, 7])
})

test('ordering and ranges', async () => {
  const { data, error } = await client
    .from('books')
    .select('id, pages')
    .order('pages', { ascending: false, nullsFirst: true })
    .range(0, 2)
  assert.equal(error, null)
  assert.deepEqual(data, [{ id: 7, pages: null }, { id: 2, pages: 444 }, { id: 1, pages: 412 }])

  const page = await client.from('books').select('id').order('id').range(2, 3)
  assert.deepEqual(page.data, [{ id: 3 }, { id: 4 }])

  const limited = await client
    .from('authors')
    .select('id, books(id)')
    .eq('id', 3)
    .order('id', { referencedTable: 'books' })
    .limit(1, { referencedTable: 'books' })
  assert.deepEqual(limited.data, [{ id: 3, books: [{ id: 5 }] }])
})

test('single() and maybeSingle()', async () => {
  const one = await client.from('authors').select('name').eq('id', 1).single()
  assert.deepEqual(one.data, { name: 'Frank Herbert' })

  const many = await client.from('authors').select('name').single()
  assert.equal(many.data, null)
  assert.equal(many.status, 406)
  assert.equal(many.error.code, code('116'))
  assert.equal(many.error.details, 'The result contains 3 rows')

  const none = await client.from('authors').select('name').eq('id', 99).maybeSingle()
  assert.deepEqual([none.data, none.error], [null, null])
  const maybe = await client.from('authors').select('name').eq('id', 2).maybeSingle()
  assert.deepEqual(maybe.data, { name: 'Ursula K. Le Guin' })
})

test('csv()', async () => {
  const { data, error } = await client.from('authors').select('id,name,born').lte('id', 2).order('id').csv()
  assert.equal(error, null)
  // Values quoted where PostgreSQL's record output quotes them (spaces).
  assert.equal(data, 'id,name,born\n1,"Frank Herbert",1920-10-08\n2,"Ursula K. Le Guin",1929-10-21')
})

test("counts: count 'exact' with head", async () => {
  const head = await client.from('books').select('*', { count: 'exact', head: true }).gt('year', 1970)
  assert.equal(head.error, null)
  assert.equal(head.data, null)
  assert.equal(head.count, 5)

  const counted = await client.from('books').select('id', { count: 'exact' }).order('id').range(0, 1)
  assert.equal(counted.count, 7)
  assert.equal(counted.status, 206)
  assert.deepEqual(counted.data, [{ id: 1 }, { id: 2 }])
})
