// Random texts for equivalence tests: fewer than `most` pieces drawn from `pieces`, joined.
export function randomText(rng: () => number, pieces: readonly string[], most: number): string {
  let text = '';
  const length = Math.floor(rng() * most);
  for (let i = 0; i < length; i++) text += pieces[Math.floor(rng() * pieces.length)];
  return text;
}
