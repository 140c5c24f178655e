// The same types through supabase-js, as most frontends take them:
// createClient<Database>() types from() and rpc() as postgrest-js does.
// server/tstypes_test.go compiles it with program.ts; it is not run,
// since supabase-js addresses Supabase's gateway paths (/rest/v1).
import { createClient } from '@supabase/supabase-js'
import type { Database } from './database.types'

const supabase = createClient<Database>('http://localhost:54321', 'anon-key')
const kinds = supabase.schema('kinds')

export async function supabaseQueries() {
  const books = await kinds.from('books').select('title, author:authors!books_author_id_fkey(name, mood)').eq('id', 1)
  const author: string | undefined = books.data?.[0]?.author.name
  const mood: Database['kinds']['Enums']['mood'] | undefined = books.data?.[0]?.author.mood
  const authors = await kinds.from('authors').select('name, books!books_author_id_fkey(title)')
  const titles: string[] | undefined = authors.data?.[0]?.books.map((b) => b.title)
  await kinds.from('authors').insert({ name: 'Ursula', email: 'ursula@example.com' })
  // @ts-expect-error name is NOT NULL without a default
  await kinds.from('authors').insert({ email: 'nobody@example.com' })
  await kinds.from('books').update({ pages: 320 }).eq('id', 1)
  const sum = await kinds.rpc('sum_all', { nums: [1, 2] })
  const n: number | null = sum.data
  const pong = await kinds.rpc('ping')
  const p: string | null = pong.data
  return { author, mood, titles, n, p }
}
