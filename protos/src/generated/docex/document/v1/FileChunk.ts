// Original file: document.proto

import type { Long } from '@grpc/proto-loader';

export interface FileChunkInput {
  'data'?: (Buffer | Uint8Array | string);
  /**
   * First chunk only: the sniffed media type, e.g. "application/pdf".
   */
  'content_type'?: (string);
  /**
   * First chunk only.
   */
  'file_name'?: (string);
  /**
   * First chunk only: the whole file's size in bytes.
   */
  'size'?: (number | string | Long);
}

export interface FileChunk {
  'data': (Buffer);
  /**
   * First chunk only: the sniffed media type, e.g. "application/pdf".
   */
  'content_type': (string);
  /**
   * First chunk only.
   */
  'file_name': (string);
  /**
   * First chunk only: the whole file's size in bytes.
   */
  'size': (string);
}
