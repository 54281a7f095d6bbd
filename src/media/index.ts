/** The media feature's public surface: other features, jobs and the app import only this file. */
export { PictureRejected, reencodePicture } from './process.js';
export { sniffPicture } from './profile-pictures.js';
export { profileBodyParser } from './profile-upload.js';
export { deleteMediaIfUnreferenced, lockMedia, putMedia } from './queries.js';
export { mediaName, MediaReader, type NewMedia, parseMediaName } from './store.js';
