// Typed queries of the published postgrest-js against the types
// svc-introspect writes for schemas kinds (kinds.sql) and js (the
// postgrest-js suite's, server/testdata/fixture.sql). server/tstypes_test.go
// compiles it with tsc --strict, then runs it against svc-serve and
// compares what it prints with the rows it must get. Each typed
// assignment fails the compilation if the types say otherwise; each
// line expecting an error fails it if the call stops being an error.
import { PostgrestClient } from '@supabase/postgrest-js'
import type { Database, Enums, Tables, TablesInsert, TablesUpdate } from './database.types'

declare const process: { env: Record<string, string | undefined> }

const url = process.env.SVC_URL
if (!url) throw new Error('SVC_URL is not set: run go test ./server -run TestTypeScriptClient')

// svcFetch speaks SVC's vendor media types (vnd.svc), as the server
// runs under SVC's names.
function svcFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers)
  for (const name of ['Accept', 'Content-Type']) {
    const value = headers.get(name)
    if (value) headers.set(name, value.replaceAll('vnd.pgrst.', 'vnd.svc.'))
  }
  return fetch(input, { ...init, headers })
}

const client = new PostgrestClient<Database>(url, { fetch: svcFetch })
const kinds = client.schema('kinds')
const js = client.schema('js')

// must returns a result's data, throwing its error.
function must<T>(r: { data: T; error: { message: string } | null }): NonNullable<T> {
  if (r.error) throw new Error(r.error.message)
  if (r.data === null || r.data === undefined) throw new Error('no data')
  return r.data
}

const out: Record<string, unknown> = {}

// Embeds: many-to-one (NOT NULL key) an object, one-to-one from the
// referenced side an object or null, one-to-many an array.
const books = must(
  await kinds
    .from('books')
    .select('id, title, pages, author:authors!books_author_id_fkey(name, mood), covers(url)')
    .order('id'),
)
const title: string = books[0].title
const pages: number | null = books[0].pages
const author: string = books[0].author.name
const mood: Database['kinds']['Enums']['mood'] = books[0].author.mood
const cover: string | undefined = books[0].covers?.url
// @ts-expect-error a to-one embed is an object, not an array
books[0].author.length
out.books = books.map((b) => ({ title: b.title, pages: b.pages, author: b.author.name, mood: b.author.mood, cover: b.covers?.url ?? null }))

const authors = must(await kinds.from('authors').select('name, books!books_author_id_fkey(title)').order('id'))
const written: string[] = authors[0].books.map((b) => b.title)
// @ts-expect-error a to-many embed is an array
authors[0].books.title
out.written = authors.map((a) => [a.name, a.books.length])

// Filters on typed columns.
const happy = must(await kinds.from('authors').select('name, initials, tags, meta').eq('mood', 'happy'))
const initials: string | null = happy[0].initials
const tags: string[] = happy[0].tags
out.happy = happy

// Insert without the optional columns; a required one missing is refused
// by the compiler, and so is a generated one.
const inserted = must(
  await kinds.from('authors').insert({ name: 'Octavia E. Butler', email: 'octavia@example.com' }).select('name, bio, mood').single(),
)
const bio: string | null = inserted.bio
out.inserted = inserted
// @ts-expect-error name is NOT NULL without a default
kinds.from('authors').insert({ email: 'nobody@example.com' })
// @ts-expect-error id is GENERATED ALWAYS
kinds.from('authors').insert({ id: 9, name: 'Nobody', email: 'nobody@example.com' })
// @ts-expect-error author_stats is a view that takes no insert
kinds.from('author_stats').insert({ name: 'Nobody' })

// Update, upsert and an update through a view.
out.updated = must(await kinds.from('books').update({ pages: 320 }).eq('id', 2).select('title, pages'))
out.upserted = must(await kinds.from('tags').upsert({ id: 2, label: 'classic' }).select('id, label'))
out.renamed = must(await kinds.from('book_titles').update({ title: 'Dune Messiah' }).eq('id', 2).select('title'))

// Functions: without arguments, with named, defaulted and variadic ones,
// SETOF a relation (select on the result), TABLE columns, an enum set.
const pong: string = must(await kinds.rpc('ping'))
const sum: number = must(await kinds.rpc('sum_all', { nums: [1, 2, 3] }))
const added = must(await kinds.rpc('add', { a: 1 }))
const byAuthor = must(await kinds.rpc('books_by', { author: 1 }).select('title'))
const byTitle: string = byAuthor[0].title
const ranked = must(await kinds.rpc('ranked', { n: 2 }))
const pos: number = ranked[0].pos
const moods: Database['kinds']['Enums']['mood'][] = must(await kinds.rpc('moods'))
// @ts-expect-error nums must be numbers
kinds.rpc('sum_all', { nums: ['1'] })
// A composite type's value, and an enum no column uses.
const origin = must(await kinds.rpc('origin'))
const originX: number | null = origin.x
const louder: Database['kinds']['Enums']['tone'] = must(await kinds.rpc('louder', { t: 'low' }))
// @ts-expect-error medium is not a tone
kinds.rpc('louder', { t: 'medium' })
out.rpc = { pong, sum, added, byAuthor, ranked, moods, origin, louder }

// Schema js: an embed along a nullable key is an object or null; an enum
// argument.
const todos = must(await js.from('todos').select('slug, list:lists(name, kind)').order('id'))
const kind: 'personal' | 'shared' | undefined = todos[0].list?.kind
const shared = must(await js.rpc('lists_of_kind', { kind: 'shared' }).select('name'))
const sharedName: string = shared[0].name
out.js = { todos, shared }

// The helper types, named as in Supabase's module; a bare name is in the
// default schema, kinds (the first of db-schemas).
const helperRow: Tables<'books'> = { id: 1, author_id: 1, editor_id: null, title: 'Dune', pages: null }
const helperSlug: Tables<{ schema: 'js' }, 'todos'>['slug'] = 'milk'
const helperInsert: TablesInsert<'authors'> = { name: 'Nobody', email: 'nobody@example.com' }
// @ts-expect-error an insert into authors needs a name
const helperBadInsert: TablesInsert<'authors'> = { email: 'nobody@example.com' }
const helperUpdate: TablesUpdate<{ schema: 'js' }, 'todos'> = { done: true }
const helperMood: Enums<'mood'> = 'happy'
// @ts-expect-error shared is a list_kind, not a mood
const helperBadMood: Enums<'mood'> = 'shared'
const helperKind: Enums<{ schema: 'js' }, 'list_kind'> = 'shared'
void [helperRow, helperSlug, helperInsert, helperBadInsert, helperUpdate, helperMood, helperBadMood, helperKind]

void [originX, title, pages, author, mood, cover, written, initials, tags, bio, byTitle, pos, kind, sharedName]
console.log(JSON.stringify(out))
