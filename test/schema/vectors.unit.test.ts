import fc from 'fast-check';
import t from 'tap';
import { cosine, dot, unitVector, vectorFromBase64, vectorToBase64 } from '../../schema/index.js';

const vector = (width: number) =>
  fc.array(fc.float({ min: -1000, max: 1000, noNaN: true, noDefaultInfinity: true }), {
    minLength: width,
    maxLength: width,
  });

t.test('the dot product of two unit vectors is their cosine', async (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 40 }).chain((w) => fc.tuple(vector(w), vector(w))),
      ([a, b]) => {
        const x = Float32Array.from(a);
        const y = Float32Array.from(b);
        const ux = unitVector(x);
        const uy = unitVector(y);
        if (ux === null || uy === null) return cosine(x, y) === -1;
        return Math.abs(dot(ux, uy) - cosine(x, y)) < 1e-5;
      },
    ),
    { numRuns: 500 },
  );
  t.pass('500 pairs of widths 1 to 40 agree within 1e-5');
});

t.test('a zero vector has no unit vector, as cosine ranks it last', async (t) => {
  t.equal(unitVector(new Float32Array(8)), null);
  t.equal(cosine(new Float32Array(8), Float32Array.from([1, 0, 0, 0, 0, 0, 0, 0])), -1);
  const unit = unitVector(Float32Array.from([3, 4]));
  t.same(Array.from(unit ?? []), [Math.fround(0.6), Math.fround(0.8)], 'scaled to length 1');
});

t.test('vectors of different widths compare as -1', async (t) => {
  t.equal(dot(new Float32Array(4).fill(1), new Float32Array(5).fill(1)), -1);
  t.equal(cosine(new Float32Array(4).fill(1), new Float32Array(5).fill(1)), -1);
});

t.test('the dot product covers widths that are not a multiple of four', async (t) => {
  for (const width of [1, 2, 3, 5, 6, 7, 1537]) {
    const ones = new Float32Array(width).fill(1);
    t.equal(dot(ones, ones), width, `width ${width}`);
  }
});

t.test('a stored vector reads back as it was written, and a wrong width reads as null', async (t) => {
  const v = Float32Array.from([0.5, -1.25, 3e-8, 42]);
  t.same(Array.from(vectorFromBase64(vectorToBase64(v), 4) ?? []), Array.from(v));
  t.equal(vectorFromBase64(vectorToBase64(v), 3), null);
});
