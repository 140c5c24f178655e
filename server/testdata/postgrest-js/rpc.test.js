// Function calls: arguments by POST and GET, filters, ordering and
// counts on a function's rows.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { client } from './client.js'

test('rpc() with arguments: a scalar', async () => {
  const post = await client.rpc('add', { a: 2, b: 40 })
  assert.deepEqual([post.data, post.error, post.status], [42, null, 200])
  const get = await client.rpc('greet', { name: 'svc' }, { get: true })
  assert.equal(get.data, 'hello svc')
  const defaults = await client.rpc('greet')
  assert.equal(defaults.data, 'hello world')
})

test('rpc() rows with filters, select, order and embeds', async () => {
  const { data, error } = await client
    .rpc('books_by', { author: 3 })
    .select('title, year, author:authors(name)')
    .gt('year', 1979)
    .order('year', { ascending: false })
  assert.equal(error, null)
  assert.deepEqual(data, [
    { title: 'Parable of the Sower', year: 1993, author: { name: 'Octavia E. Butler' } },
    { title: 'Wild Seed', year: 1980, author: { name: 'Octavia E. Butler' } },
  ])
})

test('rpc() rows as single(), and counted with head', async () => {
  const one = await client.rpc('books_by', { author: 1 }).select('title').eq('year', 1965).single()
  assert.deepEqual(one.data, { title: 'Dune' })
  const head = await client.rpc('books_by', { author: 3 }, { head: true, count: 'exact' })
  assert.deepEqual([head.data, head.count, head.error], [null, 3, null])
})

test('rpc() returning a table type and an array argument', async () => {
  const table = await client.rpc('tiny_table').gte('sq', 4)
  assert.deepEqual(table.data, [{ n: 2, sq: 4 }, { n: 3, sq: 9 }])
  const arr = await client.rpc('array_len', { a: [1, 2, 3] })
  assert.equal(arr.data, 3)
  const variadic = await client.rpc('total', { v: [1, 2, 3, 4] })
  assert.equal(variadic.data, 10)
})
