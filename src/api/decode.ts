// Turns a 2xx answer into entities: JSON, envelope, per-item validation (so a failure names
// `records[3].name`), then the normaliser with the received object as `raw`.

import { z } from 'zod';
import type { RawObject } from '../domain/entities.js';
import { YES, inPlaceCheckOf } from './in-place-check.js';
import { isPlainObject, ownField, parseJsonBody, unwrapList, unwrapObject, validate, type Unwrapped } from './parse-body.js';
import type { ApiResponse } from './transport.js';

const ListSchema = z.array(z.unknown());

export type Mapper<B, T> = (body: B, raw: RawObject) => T;

/** One entity, wrapped (`{message, record}`) or bare. */
export function decodeOne<S extends z.ZodType, T>(
  res: ApiResponse,
  envelopeKeys: readonly string[],
  schema: S,
  map: Mapper<z.output<S>, T>,
): T {
  const unwrapped = unwrapObject(parseJsonBody(res), envelopeKeys);
  const body = validate(schema, unwrapped, res);
  return map(body, unwrapped.value as RawObject);
}

/** A list under `listKey` (or a bare array); `pick` may step into a wrapper around each item. */
export function decodeMany<S extends z.ZodType, T>(
  res: ApiResponse,
  listKey: string,
  schema: S,
  map: Mapper<z.output<S>, T>,
  pick?: (item: unknown) => string | undefined,
): T[] {
  return decodeItems(res, unwrapList(parseJsonBody(res), listKey), schema, map, pick);
}

export function decodeItems<S extends z.ZodType, T>(
  res: ApiResponse,
  list: Unwrapped,
  schema: S,
  map: Mapper<z.output<S>, T>,
  pick?: (item: unknown) => string | undefined,
): T[] {
  const items = validate(ListSchema, list, res);
  const inPlace = inPlaceCheckOf(schema);
  return items.map((item, i) => {
    const innerKey = pick?.(item);
    const stepIn = innerKey !== undefined && isPlainObject(item);
    const value = stepIn ? ownField(item, innerKey) : item;
    // the usual case, valid in place (in-place-check.ts): no path built for an error never raised
    if (inPlace?.(value) === YES) return map(value as z.output<S>, value as RawObject);
    const target: Unwrapped = { value, path: stepIn ? [...list.path, i, innerKey] : [...list.path, i] };
    const body = validate(schema, target, res);
    return map(body, value as RawObject);
  });
}

/** The whole body as a JSON object (a delete's `{message}`), validated by `schema`. */
export function decodeObject<S extends z.ZodType>(res: ApiResponse, schema: S): z.output<S> {
  return validate(schema, { value: parseJsonBody(res), path: [] }, res);
}
