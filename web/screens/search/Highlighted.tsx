/** Library text with the query's words wrapped in <mark>; every piece is JSX text, so markup in it shows literally. */
import { splitOnTerms } from './highlight';

export function Highlighted(props: { text: string; terms: string[] }) {
  return <>{splitOnTerms(props.text, props.terms).map((s, i) => (s.match ? <mark key={i}>{s.text}</mark> : s.text))}</>;
}
