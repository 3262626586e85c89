/**
 * A failed custom resource conversion, and the Status a request answers with it.
 *
 * Kubernetes' converters return plain Go errors; the API handlers turn a plain error into a Status with code
 * 500, no reason and the error text as the message (`responsewriters.ErrorToAPIStatus`), which kubectl
 * prints as `Error from server: conversion webhook for ... failed: ...`. A failure concerns one resource
 * only: the caller answers the request that needed the conversion and keeps serving everything else.
 */
import { StatusError } from '../../errors/status-error.js';

/** Thrown by the converters; `message` is Kubernetes' error text. */
export class ConversionError extends Error {
  override readonly name = 'ConversionError';
}

/**
 * The Status for a conversion failure: code 500, reason empty (Kubernetes' StatusReasonUnknown; the body then
 * leaves `reason` out, as Go omits the empty member).
 */
export function conversionStatus(err: ConversionError): StatusError {
  return new StatusError('', err.message, undefined, 500);
}
