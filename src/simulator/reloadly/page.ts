// Spring's page, as Reloadly answers the paged lists (R6 Page and fixture products_paged_unfiltered_response.json,
// R7): `page` in the query counts from 1 (R6 QueryFilter, R7 `page=1`), `number` and `pageable.pageNumber` from 0.

const UNSORTED = { sorted: false, unsorted: true, empty: true };

const positive = (value: unknown, fallback: number) => {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 ? n : fallback;
};

export function page<T>(items: readonly T[], query: { page?: unknown; size?: unknown }) {
  const size = Math.min(positive(query.size, 200), 200);
  const number = positive(query.page, 1) - 1;
  const content = items.slice(number * size, number * size + size);
  const totalPages = Math.ceil(items.length / size);
  return {
    content,
    pageable: { sort: UNSORTED, pageNumber: number, pageSize: size, offset: number * size, paged: true, unpaged: false },
    totalPages,
    last: number >= totalPages - 1,
    totalElements: items.length,
    sort: UNSORTED,
    first: number === 0,
    numberOfElements: content.length,
    size,
    number,
    empty: content.length === 0,
  };
}
