// Schema js's own type, the enum list_kind: a column filtered and ordered
// on, a function's argument and a function's value. The server prepares
// such statements with the type's OID, which changes when a migration
// drops and recreates the type (TestPostgrestJS's second run).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { js } from './client.js'

test('an enum column: eq, in and order', async () => {
  const eq = await js.from('lists').select('name, kind').eq('kind', 'shared')
  assert.equal(eq.error, null)
  assert.deepEqual(eq.data, [{ name: 'work', kind: 'shared' }])
  const both = await js.from('lists').select('name').in('kind', ['personal', 'shared']).order('kind', { ascending: false })
  assert.equal(both.error, null)
  assert.deepEqual(both.data, [{ name: 'work' }, { name: 'home' }])
})

test('rpc() with an enum argument by POST and GET, and returning an enum', async () => {
  const post = await js.rpc('lists_of_kind', { kind: 'shared' }).select('name')
  assert.deepEqual([post.data, post.error], [[{ name: 'work' }], null])
  const get = await js.rpc('lists_of_kind', { kind: 'personal' }, { get: true }).select('id, name')
  assert.deepEqual([get.data, get.error], [[{ id: 1, name: 'home' }], null])
  const kind = await js.rpc('kind_of', { list_id: 2 }, { get: true })
  assert.deepEqual([kind.data, kind.error], ['shared', null])
})
